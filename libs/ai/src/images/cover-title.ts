import type { SKRSContext2D } from '@napi-rs/canvas';
import { colourDistance, contrastRatio, toHexColour, type Rgb } from './colour.js';
import { COVER_HEIGHT, COVER_WIDTH, MARGIN, type Box, type Layout, type TitleSpec } from './cover-layouts.js';

// A cover's text: the title, wrapped over up to 4 lines and shrunk until it fits the layout's box, and the
// style label, each in the shade that reads best on what is drawn under it.

const LIGHT_TEXT: Rgb = [255, 255, 255];
const DARK_TEXT: Rgb = [20, 20, 20];
/** WCAG AA for large text is 3; aim higher since the title sits on gradients and shapes. */
const READABLE_CONTRAST = 4.5;
const STYLE_LABEL_SIZE = 24;
const MIN_TITLE_SIZE = 34;
const MAX_TITLE_LINES = 4;

export interface FittedTitle {
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

export function fitTitle(ctx: SKRSContext2D, title: string, spec: TitleSpec): FittedTitle {
  const fitted = (lines: string[], size: number): FittedTitle => ({
    lines,
    size,
    lineHeight: Math.round(size * 1.2),
    width: Math.max(0, ...lines.map((line) => ctx.measureText(line).width)),
  });
  for (let size = spec.maxSize; size > MIN_TITLE_SIZE; size -= 2) {
    ctx.font = font(spec, size);
    const lines = wrap(ctx, title, spec.box.width);
    if (lines.length <= MAX_TITLE_LINES && lines.length * Math.round(size * 1.2) <= spec.box.height)
      return fitted(lines, size);
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
export function titleBlockBox(spec: TitleSpec, title: FittedTitle): Box {
  const height = title.lines.length * title.lineHeight;
  const x = spec.align === 'center' ? spec.box.x + (spec.box.width - title.width) / 2 : spec.box.x;
  return { x, y: spec.box.y + (spec.box.height - height) / 2, width: title.width, height };
}

export function drawLines(ctx: SKRSContext2D, title: FittedTitle, spec: TitleSpec): void {
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
export function placeTextColour(ctx: SKRSContext2D, box: Box): Rgb {
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
export function drawRules(
  ctx: SKRSContext2D,
  layout: Layout,
  colours: Rgb[],
  textColour: Rgb,
  spec: TitleSpec,
  title: FittedTitle,
): void {
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

export function drawStyleLabel(ctx: SKRSContext2D, style: string, spec: TitleSpec): void {
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
