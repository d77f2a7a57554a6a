import sharp, { type Metadata } from 'sharp';
import type { ImageFacts } from '../providers/ai-provider.js';
import { colourDistance, perceivedLightness, toHexColour, type Rgb } from './colour.js';

/**
 * Decodes a fetched image into the facts a product generator may look at. Only the
 * five web formats are read, and the pixel count is capped before anything is decoded, so a small
 * file that declares huge dimensions (a decompression bomb) is refused from its header alone.
 */

/** 40 megapixels: more than any product photo needs, far less than a bomb. */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** The image cannot be used: not an image, a format this service does not read, or too large. */
export class UnreadableImageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnreadableImageError';
  }
}

/** How the messages name the image by default: the product photo of `generate-product`. */
const PRODUCT_PHOTO = 'The file at image_url';
const notReadable = (subject: string) => `${subject} is not an image this service reads (jpeg, png, webp, gif, avif)`;
const tooLarge = (subject: string) => `${subject} is larger than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`;

/** The formats read, by sharp's decoder name → [format, mime]. AVIF is decoded by libheif. */
const READABLE: Record<string, { format: string; mime: string }> = {
  jpeg: { format: 'jpeg', mime: 'image/jpeg' },
  png: { format: 'png', mime: 'image/png' },
  webp: { format: 'webp', mime: 'image/webp' },
  gif: { format: 'gif', mime: 'image/gif' },
  avif: { format: 'avif', mime: 'image/avif' },
};

/**
 * Options for every sharp instance reading untrusted bytes: the pixel cap, and sharp's default
 * `failOn: 'warning'` (kept on purpose), which refuses truncated or corrupt pixel data.
 */
export const UNTRUSTED_INPUT = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'warning' } as const;

export interface ImageIdentity {
  format: string;
  mime: string;
  width: number;
  height: number;
  hasAlpha: boolean;
}

/**
 * Reads the header only: the format and dimensions, refusing what this service does not read.
 * `subject` names the image in the error messages.
 */
export async function identifyImage(bytes: Buffer, subject = PRODUCT_PHOTO): Promise<ImageIdentity> {
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, UNTRUSTED_INPUT).metadata();
  } catch (error) {
    // sharp checks the declared dimensions against limitInputPixels while reading the header.
    if (error instanceof Error && /pixel limit/i.test(error.message))
      throw new UnreadableImageError(tooLarge(subject), { cause: error });
    throw new UnreadableImageError(notReadable(subject), { cause: error });
  }
  const decoder = metadata.format === 'heif' ? (metadata.compression === 'av1' ? 'avif' : 'heic') : metadata.format;
  const readable = READABLE[decoder];
  if (!readable || !metadata.width || !metadata.height) throw new UnreadableImageError(notReadable(subject));
  // Animated images are read frame by frame: the first frame is what is analysed.
  const height = metadata.pageHeight && metadata.pageHeight < metadata.height ? metadata.pageHeight : metadata.height;
  if (metadata.width * height > MAX_IMAGE_PIXELS) throw new UnreadableImageError(tooLarge(subject));
  return { ...readable, width: metadata.width, height, hasAlpha: metadata.hasAlpha };
}

export async function analyzeImage(bytes: Buffer): Promise<ImageFacts> {
  const identity = await identifyImage(bytes);
  let pixels: Buffer;
  try {
    // A 64×64 thumbnail is plenty for colours and lightness; sRGB + alpha gives 4 bytes per pixel
    // whatever the source (greyscale, CMYK JPEG, palette PNG).
    pixels = await sharp(bytes, UNTRUSTED_INPUT)
      .resize(SAMPLE_SIZE, SAMPLE_SIZE, { fit: 'fill', kernel: 'linear' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer();
  } catch (error) {
    // The header was fine but the pixel data is not (truncated, corrupt).
    throw new UnreadableImageError(notReadable(PRODUCT_PHOTO), { cause: error });
  }
  const { dominantColors, lightness } = summarisePixels(pixels);
  return {
    bytes,
    mime: identity.mime,
    format: identity.format,
    width: identity.width,
    height: identity.height,
    dominantColors,
    lightness,
    hasAlpha: identity.hasAlpha,
  };
}

const SAMPLE_SIZE = 64;
/** Bits kept per channel when bucketing: 4 gives 4096 buckets of 16 levels each. */
const BUCKET_BITS = 4;
/** Buckets closer than this (CIE76 ΔE) are one colour to the eye, so they are merged. */
const MERGE_DISTANCE = 18;
/** A colour covering less than this share of the visible pixels is noise, not a dominant colour. */
const MIN_SHARE = 0.02;
const MAX_COLOURS = 5;

interface Cluster {
  weight: number;
  r: number;
  g: number;
  b: number;
}

/** RGBA pixels → up to 5 dominant colours (most frequent first) and the mean perceived lightness. */
export function summarisePixels(rgba: Buffer): { dominantColors: string[]; lightness: number } {
  const buckets = new Map<number, Cluster>();
  let totalWeight = 0;
  let lightnessSum = 0;
  for (let i = 0; i + 3 < rgba.length; i += 4) {
    // Alpha weighs each pixel: fully transparent ones count for nothing.
    const weight = rgba[i + 3] / 255;
    if (weight === 0) continue;
    const [r, g, b] = [rgba[i], rgba[i + 1], rgba[i + 2]];
    const shift = 8 - BUCKET_BITS;
    const key = ((r >> shift) << (2 * BUCKET_BITS)) | ((g >> shift) << BUCKET_BITS) | (b >> shift);
    const bucket = buckets.get(key) ?? { weight: 0, r: 0, g: 0, b: 0 };
    bucket.weight += weight;
    bucket.r += r * weight;
    bucket.g += g * weight;
    bucket.b += b * weight;
    buckets.set(key, bucket);
    totalWeight += weight;
    lightnessSum += perceivedLightness([r, g, b]) * weight;
  }
  // A wholly transparent image shows the page behind it: call it white, with no colours.
  if (totalWeight === 0) return { dominantColors: [], lightness: 1 };

  // Greedy merge, heaviest bucket first; ties broken by key so the result never depends on Map order.
  const ordered = [...buckets.entries()]
    .sort(([keyA, a], [keyB, b]) => b.weight - a.weight || keyA - keyB)
    .map(([, bucket]) => bucket);
  const clusters: Cluster[] = [];
  for (const bucket of ordered) {
    const colour = meanOf(bucket);
    const near = clusters.find((cluster) => colourDistance(meanOf(cluster), colour) < MERGE_DISTANCE);
    if (near) {
      near.weight += bucket.weight;
      near.r += bucket.r;
      near.g += bucket.g;
      near.b += bucket.b;
    } else {
      clusters.push({ ...bucket });
    }
  }
  clusters.sort((a, b) => b.weight - a.weight);
  const significant = clusters.filter((cluster, index) => index === 0 || cluster.weight / totalWeight >= MIN_SHARE);
  return {
    dominantColors: significant.slice(0, MAX_COLOURS).map((cluster) => toHexColour(meanOf(cluster))),
    lightness: Math.round((lightnessSum / totalWeight) * 1000) / 1000,
  };
}

function meanOf(cluster: Cluster): Rgb {
  return [cluster.r / cluster.weight, cluster.g / cluster.weight, cluster.b / cluster.weight];
}
