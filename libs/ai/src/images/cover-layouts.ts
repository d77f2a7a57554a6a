import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { contrastRatio, mixColours, toHexColour, type Rgb } from './colour.js';

// The cover's six layouts: how a style picks one, and each one's background and title box.

export const COVER_WIDTH = 1200;
export const COVER_HEIGHT = 630;

/** Our own family names, so the covers never depend on the fonts installed on the host. */
const SANS = 'StorefrontCoverSans';
const SERIF = 'StorefrontCoverSerif';

let fontsRegistered = false;

export function registerFonts(): void {
  if (fontsRegistered) return;
  const ttf = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const fonts: [file: string, family: string][] = [
    ['DejaVuSans.ttf', SANS],
    ['DejaVuSans-Bold.ttf', SANS],
    ['DejaVuSerif.ttf', SERIF],
    ['DejaVuSerif-Bold.ttf', SERIF],
  ];
  for (const [file, family] of fonts) {
    if (!GlobalFonts.registerFromPath(path.join(ttf, file), family))
      throw new Error(`The cover font ${file} could not be loaded from ${ttf}`);
  }
  fontsRegistered = true;
}

const LAYOUTS = ['minimal', 'bold', 'vintage', 'modern', 'playful', 'elegant'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Words of `style` that choose a layout; any other style hashes to one. */
const STYLE_WORDS: Record<string, Layout> = {
  minimal: 'minimal',
  minimalist: 'minimal',
  simple: 'minimal',
  clean: 'minimal',
  bold: 'bold',
  loud: 'bold',
  strong: 'bold',
  vintage: 'vintage',
  retro: 'vintage',
  classic: 'vintage',
  modern: 'modern',
  futuristic: 'modern',
  tech: 'modern',
  playful: 'playful',
  fun: 'playful',
  colorful: 'playful',
  colourful: 'playful',
  kids: 'playful',
  elegant: 'elegant',
  luxury: 'elegant',
  chic: 'elegant',
};

export function coverLayout(style: string): Layout {
  const words = style.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  for (const word of words) {
    if (Object.hasOwn(STYLE_WORDS, word)) return STYLE_WORDS[word];
  }
  return LAYOUTS[createHash('sha256').update(style.trim().toLowerCase()).digest().readUInt32BE(0) % LAYOUTS.length];
}

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TitleSpec {
  box: Box;
  align: 'left' | 'center';
  family: string;
  weight: 400 | 700;
  maxSize: number;
  /** Top of the small style label. */
  labelY: number;
}

export const MARGIN = 90;

/** Deterministic numbers for the decorations, from everything the cover shows. */
export class Dice {
  private counter = 0;
  constructor(private readonly seed: Buffer) {}
  next(): number {
    const digest = createHash('sha256').update(this.seed).update(String(this.counter++)).digest();
    return digest.readUInt32BE(0) / 0x1_0000_0000;
  }
}

// ——— Backgrounds: every layout leaves the top-left corner in the first colour. ———

type LayoutDrawer = (ctx: SKRSContext2D, colours: Rgb[], dice: Dice) => TitleSpec;

export const LAYOUT_DRAWERS: Record<Layout, LayoutDrawer> = {
  minimal(ctx, colours) {
    fill(ctx, colours[0]);
    return {
      box: { x: MARGIN + 10, y: 130, width: COVER_WIDTH - 2 * (MARGIN + 10), height: 320 },
      align: 'left',
      family: SANS,
      weight: 400,
      maxSize: 84,
      labelY: 520,
    };
  },

  bold(ctx, colours, dice) {
    // Diagonal bands, one per colour (a darker shade of the first when only one was given).
    const bands = colours.length > 1 ? colours : [colours[0], mixColours(colours[0], BLACK, 0.2)];
    const slant = 160 + Math.round(dice.next() * 160);
    const bandWidth = (COVER_WIDTH + slant) / bands.length;
    bands.forEach((colour, index) => {
      ctx.fillStyle = toHexColour(colour);
      const left = index * bandWidth;
      ctx.beginPath();
      ctx.moveTo(left, 0);
      ctx.lineTo(left + bandWidth + 1, 0);
      ctx.lineTo(left + bandWidth + 1 - slant, COVER_HEIGHT);
      ctx.lineTo(left - slant, COVER_HEIGHT);
      ctx.closePath();
      ctx.fill();
    });
    return {
      box: { x: MARGIN, y: 120, width: COVER_WIDTH - 2 * MARGIN, height: 360 },
      align: 'center',
      family: SANS,
      weight: 700,
      maxSize: 104,
      labelY: 530,
    };
  },

  vintage(ctx, colours) {
    fill(ctx, colours[0]);
    // Stripes of the other colours along the bottom, like an old label.
    const stripes = colours.length > 1 ? colours.slice(1) : [mixColours(colours[0], BLACK, 0.25)];
    const stripeHeight = 14;
    stripes.forEach((colour, index) => {
      ctx.fillStyle = toHexColour(colour);
      ctx.fillRect(0, COVER_HEIGHT - 70 + index * stripeHeight, COVER_WIDTH, stripeHeight);
    });
    // A double frame in a shade of the first colour.
    const frame = mixColours(
      colours[0],
      contrastRatio(colours[0], WHITE) > contrastRatio(colours[0], BLACK) ? WHITE : BLACK,
      0.6,
    );
    ctx.strokeStyle = toHexColour(frame);
    ctx.lineWidth = 4;
    ctx.strokeRect(28, 28, COVER_WIDTH - 56, COVER_HEIGHT - 56 - 70);
    ctx.lineWidth = 1.5;
    ctx.strokeRect(40, 40, COVER_WIDTH - 80, COVER_HEIGHT - 80 - 70);
    return {
      box: { x: MARGIN + 20, y: 90, width: COVER_WIDTH - 2 * (MARGIN + 20), height: 330 },
      align: 'center',
      family: SERIF,
      weight: 700,
      maxSize: 88,
      labelY: 450,
    };
  },

  modern(ctx, colours) {
    // A horizontal gradient through every colour.
    const stops = colours.length > 1 ? colours : [colours[0], mixColours(colours[0], BLACK, 0.35)];
    const gradient = ctx.createLinearGradient(0, 0, COVER_WIDTH, 0);
    stops.forEach((colour, index) => gradient.addColorStop(index / (stops.length - 1), toHexColour(colour)));
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, COVER_WIDTH, COVER_HEIGHT);
    return {
      box: { x: MARGIN + 40, y: 110, width: COVER_WIDTH - 2 * MARGIN - 80, height: 360 },
      align: 'left',
      family: SANS,
      weight: 700,
      maxSize: 92,
      labelY: 520,
    };
  },

  playful(ctx, colours, dice) {
    fill(ctx, colours[0]);
    const dots = colours.length > 1 ? colours.slice(1) : [mixColours(colours[0], WHITE, 0.35)];
    const count = 7 + Math.floor(dice.next() * 4);
    for (let i = 0; i < count; i++) {
      const radius = 30 + dice.next() * 100;
      // Dots gather at the left and right edges, alternately, leaving the middle to the title.
      let x = i % 2 === 0 ? dice.next() * 260 : COVER_WIDTH - dice.next() * 260;
      let y = dice.next() * COVER_HEIGHT;
      // Keep the top-left corner clear: it shows the first colour on every layout.
      if (Math.hypot(x, y) < radius + 40) [x, y] = [x + radius + 80, y + radius + 80];
      ctx.globalAlpha = 0.55 + dice.next() * 0.4;
      ctx.fillStyle = toHexColour(dots[i % dots.length]);
      ctx.beginPath();
      ctx.arc(x, y, radius, 0, Math.PI * 2);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    return {
      box: { x: MARGIN + 30, y: 130, width: COVER_WIDTH - 2 * (MARGIN + 30), height: 330 },
      align: 'center',
      family: SANS,
      weight: 700,
      maxSize: 96,
      labelY: 520,
    };
  },

  elegant(ctx, colours) {
    // A vertical gradient from the first colour to the last (or a deep shade of the first).
    const end = colours.length > 1 ? colours[colours.length - 1] : mixColours(colours[0], BLACK, 0.45);
    const gradient = ctx.createLinearGradient(0, 0, 0, COVER_HEIGHT);
    gradient.addColorStop(0, toHexColour(colours[0]));
    gradient.addColorStop(1, toHexColour(end));
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, COVER_WIDTH, COVER_HEIGHT);
    return {
      box: { x: MARGIN + 60, y: 150, width: COVER_WIDTH - 2 * (MARGIN + 60), height: 300 },
      align: 'center',
      family: SERIF,
      weight: 400,
      maxSize: 80,
      labelY: 530,
    };
  },
};

function fill(ctx: SKRSContext2D, colour: Rgb): void {
  ctx.fillStyle = toHexColour(colour);
  ctx.fillRect(0, 0, COVER_WIDTH, COVER_HEIGHT);
}
