import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import { colourDistance, contrastRatio, mixColours, parseHexColour, toHexColour, type Rgb } from './colour.js';
import { identifyImage, UNTRUSTED_INPUT, UnreadableImageError } from './image-analysis.js';

/**
 * Blog covers: the offline renderer (a real PNG drawn from the title, style and colours) and the
 * normaliser every provider's image goes through before it is stored (a 1200×630 PNG).
 * Rendering is deterministic: the same input gives the same bytes, so a cover can be re-created.
 */

/** What a cover shows: the caller's title, style and colours. */
export interface CoverInput {
  title: string;
  style: string;
  /** 1–5 colours, `#RGB` or `#RRGGBB` as sent. */
  colors: string[];
}

export const COVER_WIDTH = 1200;
export const COVER_HEIGHT = 630;

/** Our own family names, so the covers never depend on the fonts installed on the host. */
const SANS = 'StorefrontCoverSans';
const SERIF = 'StorefrontCoverSerif';

let fontsRegistered = false;

function registerFonts(): void {
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
type Layout = (typeof LAYOUTS)[number];

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

const FALLBACK_COLOUR: Rgb = [31, 41, 55];
const LIGHT_TEXT: Rgb = [255, 255, 255];
const DARK_TEXT: Rgb = [20, 20, 20];
const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];
/** WCAG AA for large text is 3; aim higher since the title sits on gradients and shapes. */
const READABLE_CONTRAST = 4.5;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface TitleSpec {
  box: Box;
  align: 'left' | 'center';
  family: string;
  weight: 400 | 700;
  maxSize: number;
  /** Top of the small style label. */
  labelY: number;
}

const MARGIN = 90;
const STYLE_LABEL_SIZE = 24;
const MIN_TITLE_SIZE = 34;
const MAX_TITLE_LINES = 4;

/** Deterministic numbers for the decorations, from everything the cover shows. */
class Dice {
  private counter = 0;
  constructor(private readonly seed: Buffer) {}
  next(): number {
    const digest = createHash('sha256').update(this.seed).update(String(this.counter++)).digest();
    return digest.readUInt32BE(0) / 0x1_0000_0000;
  }
}

export async function renderCover(input: CoverInput): Promise<Buffer> {
  registerFonts();
  const parsed = input.colors.map(parseHexColour).filter((colour): colour is Rgb => colour !== null);
  const colours = parsed.length ? parsed.slice(0, 5) : [FALLBACK_COLOUR];
  const title = input.title.replace(/\s+/g, ' ').trim();
  const style = input.style.replace(/\s+/g, ' ').trim();
  const layout = coverLayout(style);
  const dice = new Dice(
    createHash('sha256')
      .update(JSON.stringify([title, style, colours.map(toHexColour)]))
      .digest(),
  );

  const canvas = createCanvas(COVER_WIDTH, COVER_HEIGHT);
  const ctx = canvas.getContext('2d');
  const spec = LAYOUT_DRAWERS[layout](ctx, colours, dice);

  const fittedTitle = fitTitle(ctx, title, spec);
  const titleColour = placeTextColour(ctx, titleBlockBox(spec, fittedTitle));
  ctx.fillStyle = toHexColour(titleColour);
  drawLines(ctx, fittedTitle, spec);
  if (layout === 'minimal' || layout === 'elegant') drawRules(ctx, layout, colours, titleColour, spec, fittedTitle);

  if (style) drawStyleLabel(ctx, style, spec);
  return canvas.encode('png');
}

// ——— Backgrounds: every layout leaves the top-left corner in the first colour. ———

type LayoutDrawer = (ctx: SKRSContext2D, colours: Rgb[], dice: Dice) => TitleSpec;

const LAYOUT_DRAWERS: Record<Layout, LayoutDrawer> = {
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
    const frame = mixColours(colours[0], contrastRatio(colours[0], WHITE) > contrastRatio(colours[0], BLACK) ? WHITE : BLACK, 0.6);
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

// ——— Title: wrapped over up to 4 lines, shrunk until it fits the layout's box. ———

interface FittedTitle {
  lines: string[];
  size: number;
  lineHeight: number;
  /** The widest line, measured. */
  width: number;
}

function font(spec: Pick<TitleSpec, 'family' | 'weight'>, size: number): string {
  return `${spec.weight} ${size}px ${spec.family}`;
}

const graphemes = (text: string) =>
  Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (part) => part.segment);

/** Greedy word wrap; a word wider than the line is broken between characters. */
function wrap(ctx: SKRSContext2D, text: string, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (ctx.measureText(candidate).width <= maxWidth) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    if (ctx.measureText(word).width <= maxWidth) {
      line = word;
      continue;
    }
    for (const piece of graphemes(word)) {
      if (line && ctx.measureText(line + piece).width > maxWidth) {
        lines.push(line);
        line = '';
      }
      line += piece;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function fitTitle(ctx: SKRSContext2D, title: string, spec: TitleSpec): FittedTitle {
  const fitted = (lines: string[], size: number): FittedTitle => ({
    lines,
    size,
    lineHeight: Math.round(size * 1.2),
    width: Math.max(0, ...lines.map((line) => ctx.measureText(line).width)),
  });
  for (let size = spec.maxSize; size > MIN_TITLE_SIZE; size -= 2) {
    ctx.font = font(spec, size);
    const lines = wrap(ctx, title, spec.box.width);
    if (lines.length <= MAX_TITLE_LINES && lines.length * Math.round(size * 1.2) <= spec.box.height) return fitted(lines, size);
  }
  // At the smallest size a title still too long keeps 4 lines, the last ending in an ellipsis.
  ctx.font = font(spec, MIN_TITLE_SIZE);
  const lines = wrap(ctx, title, spec.box.width);
  if (lines.length > MAX_TITLE_LINES) {
    lines.length = MAX_TITLE_LINES;
    lines[MAX_TITLE_LINES - 1] = ellipsize(ctx, lines[MAX_TITLE_LINES - 1], spec.box.width);
  }
  return fitted(lines, MIN_TITLE_SIZE);
}

function ellipsize(ctx: SKRSContext2D, line: string, maxWidth: number): string {
  const pieces = graphemes(line);
  while (pieces.length && ctx.measureText(`${pieces.join('').trimEnd()}…`).width > maxWidth) pieces.pop();
  return `${pieces.join('').trimEnd()}…`;
}

/** Where the title's lines actually are: centred vertically in the layout's box. */
function titleBlockBox(spec: TitleSpec, title: FittedTitle): Box {
  const height = title.lines.length * title.lineHeight;
  const x = spec.align === 'center' ? spec.box.x + (spec.box.width - title.width) / 2 : spec.box.x;
  return { x, y: spec.box.y + (spec.box.height - height) / 2, width: title.width, height };
}

function drawLines(ctx: SKRSContext2D, title: FittedTitle, spec: TitleSpec): void {
  const block = titleBlockBox(spec, title);
  ctx.font = font(spec, title.size);
  ctx.textAlign = spec.align;
  ctx.textBaseline = 'middle';
  const x = spec.align === 'center' ? spec.box.x + spec.box.width / 2 : spec.box.x;
  title.lines.forEach((line, index) => ctx.fillText(line, x, block.y + title.lineHeight * (index + 0.5)));
}

/**
 * Picks white or near-black text by its contrast with the pixels already drawn under `box`
 * (the 10th percentile, so a bright band under part of the title counts); when neither reads well
 * enough, lays a translucent panel of the opposite shade behind the text first.
 */
function placeTextColour(ctx: SKRSContext2D, box: Box): Rgb {
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  const width = Math.max(1, Math.min(COVER_WIDTH - x, Math.ceil(box.width)));
  const height = Math.max(1, Math.min(COVER_HEIGHT - y, Math.ceil(box.height)));
  const { data } = ctx.getImageData(x, y, width, height);
  const samples: Rgb[] = [];
  for (let row = 0; row < height; row += 6) {
    for (let column = 0; column < width; column += 6) {
      const i = (row * width + column) * 4;
      samples.push([data[i], data[i + 1], data[i + 2]]);
    }
  }
  const score = (text: Rgb) => {
    const ratios = samples.map((sample) => contrastRatio(text, sample)).sort((a, b) => a - b);
    return ratios[Math.floor(ratios.length * 0.1)] ?? 21;
  };
  const [light, dark] = [score(LIGHT_TEXT), score(DARK_TEXT)];
  const text = light >= dark ? LIGHT_TEXT : DARK_TEXT;
  if (Math.max(light, dark) < READABLE_CONTRAST) {
    ctx.fillStyle = text === LIGHT_TEXT ? 'rgba(0, 0, 0, 0.6)' : 'rgba(255, 255, 255, 0.72)';
    const pad = 24;
    ctx.beginPath();
    ctx.roundRect(x - pad, y - pad, width + 2 * pad, height + 2 * pad, 18);
    ctx.fill();
  }
  return text;
}

/** The thin rules of the quiet layouts: an accent under the title, or lines above and below it. */
function drawRules(ctx: SKRSContext2D, layout: Layout, colours: Rgb[], textColour: Rgb, spec: TitleSpec, title: FittedTitle): void {
  const block = titleBlockBox(spec, title);
  if (layout === 'minimal') {
    // The second colour as the accent when it stands out from the background, else the text colour.
    const accent = colours[1] && colourDistance(colours[1], colours[0]) > 20 ? colours[1] : textColour;
    ctx.fillStyle = toHexColour(accent);
    ctx.fillRect(spec.box.x, block.y + block.height + 28, 140, 8);
    return;
  }
  ctx.fillStyle = toHexColour(textColour);
  const centre = spec.box.x + spec.box.width / 2;
  ctx.fillRect(centre - 60, block.y - 34, 120, 2);
  ctx.fillRect(centre - 60, block.y + block.height + 32, 120, 2);
}

function drawStyleLabel(ctx: SKRSContext2D, style: string, spec: TitleSpec): void {
  const labelFont = { family: spec.family, weight: 400 as const };
  ctx.font = font(labelFont, STYLE_LABEL_SIZE);
  const maxWidth = COVER_WIDTH - 2 * MARGIN;
  const text = ctx.measureText(style).width > maxWidth ? ellipsize(ctx, style, maxWidth) : style;
  const width = Math.min(maxWidth, ctx.measureText(text).width);
  const y = spec.labelY;
  const x = spec.align === 'center' ? (COVER_WIDTH - width) / 2 : spec.box.x;
  const colour = placeTextColour(ctx, { x, y, width, height: STYLE_LABEL_SIZE * 1.3 });
  ctx.font = font(labelFont, STYLE_LABEL_SIZE);
  ctx.fillStyle = toHexColour(colour);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x, y + (STYLE_LABEL_SIZE * 1.3) / 2);
}

// ——— Normalising any provider's image into the stored cover. ———

/** Any image sharp reads here → a 1200×630 PNG, cropped to fill (centred). */
export async function normalizeCover(bytes: Buffer): Promise<Buffer> {
  await identifyImage(bytes, 'The cover image');
  try {
    return await sharp(bytes, { ...UNTRUSTED_INPUT, autoOrient: true })
      .resize(COVER_WIDTH, COVER_HEIGHT, { fit: 'cover', position: 'centre' })
      .png()
      .toBuffer();
  } catch (error) {
    throw new UnreadableImageError('The cover image is not an image this service reads (jpeg, png, webp, gif, avif)', { cause: error });
  }
}
