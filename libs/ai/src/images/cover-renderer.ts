import { createHash } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { parseHexColour, toHexColour, type Rgb } from './colour.js';
import { COVER_HEIGHT, COVER_WIDTH, coverLayout, Dice, LAYOUT_DRAWERS, registerFonts } from './cover-layouts.js';
import { drawLines, drawRules, drawStyleLabel, fitTitle, placeTextColour, titleBlockBox } from './cover-title.js';
import { identifyImage, UNTRUSTED_INPUT, UnreadableImageError } from './image-analysis.js';

/**
 * Blog covers: the offline renderer (a real PNG drawn from the title, style and colours) and the
 * normaliser every provider's image goes through before it is stored (a 1200×630 PNG).
 * The layouts are in cover-layouts.ts, the title and the style label in cover-title.ts.
 * Rendering is deterministic: the same input gives the same bytes, so a cover can be re-created.
 */

export { COVER_HEIGHT, COVER_WIDTH, coverLayout };

/** What a cover shows: the caller's title, style and colours. */
export interface CoverInput {
  title: string;
  style: string;
  /** 1–5 colours, `#RGB` or `#RRGGBB` as sent. */
  colors: string[];
}

const FALLBACK_COLOUR: Rgb = [31, 41, 55];

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
    throw new UnreadableImageError('The cover image is not an image this service reads (jpeg, png, webp, gif, avif)', {
      cause: error,
    });
  }
}
