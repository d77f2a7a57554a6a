import { crc32, deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { colourDistance, parseHexColour, type Rgb } from './colour.js';
import {
  analyzeImage,
  identifyImage,
  MAX_IMAGE_PIXELS,
  summarisePixels,
  UnreadableImageError,
} from './image-analysis.js';

const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];

/** A 600×400 image: left half red, right half blue. */
function halves(width = 600, height = 400) {
  return sharp({ create: { width, height, channels: 3, background: '#ff0000' } }).composite([
    { input: { create: { width: width / 2, height, channels: 3, background: '#0000ff' } }, left: width / 2, top: 0 },
  ]);
}

function near(hexes: string[], rgb: Rgb): boolean {
  return hexes.some((hex) => colourDistance(parseHexColour(hex)!, rgb) < 10);
}

/** A PNG whose header declares `width`×`height` but whose data is a few bytes: a decompression bomb. */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('analyzeImage', () => {
  it.each([
    ['png', 'image/png', (image: Sharp) => image.png()],
    ['jpeg', 'image/jpeg', (image: Sharp) => image.jpeg({ quality: 95 })],
    ['webp', 'image/webp', (image: Sharp) => image.webp({ lossless: true })],
  ])(
    'reads a %s: format, mime, dimensions and both halves among the dominant colours',
    async (format, mime, encode) => {
      const bytes = await encode(halves()).toBuffer();
      const facts = await analyzeImage(bytes);
      expect(facts).toMatchObject({ format, mime, width: 600, height: 400 });
      expect(facts.bytes).toBe(bytes);
      expect(near(facts.dominantColors, RED)).toBe(true);
      expect(near(facts.dominantColors, BLUE)).toBe(true);
      expect(facts.dominantColors.length).toBeLessThanOrEqual(5);
      for (const colour of facts.dominantColors) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
      // Red's L* is 53 and blue's 32: the mean sits between them.
      expect(facts.lightness).toBeGreaterThan(0.35);
      expect(facts.lightness).toBeLessThan(0.5);
    },
  );

  it('reads gif and avif too', async () => {
    const gif = await analyzeImage(await halves(64, 32).gif().toBuffer());
    expect(gif).toMatchObject({ format: 'gif', mime: 'image/gif', width: 64, height: 32 });
    const avif = await analyzeImage(await halves(64, 32).avif().toBuffer());
    expect(avif).toMatchObject({ format: 'avif', mime: 'image/avif', width: 64, height: 32 });
  });

  it('puts the most frequent colour first and measures lightness of white and black', async () => {
    const mostlyGreen = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#00a000' } })
      .composite([
        { input: { create: { width: 100, height: 20, channels: 3, background: '#ffff00' } }, left: 0, top: 0 },
      ])
      .png()
      .toBuffer();
    const facts = await analyzeImage(mostlyGreen);
    expect(colourDistance(parseHexColour(facts.dominantColors[0])!, [0, 160, 0])).toBeLessThan(5);
    expect(near(facts.dominantColors, [255, 255, 0])).toBe(true);

    const white = await analyzeImage(
      await sharp({ create: { width: 10, height: 10, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer(),
    );
    const black = await analyzeImage(
      await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000000' } })
        .png()
        .toBuffer(),
    );
    expect(white.lightness).toBeCloseTo(1, 2);
    expect(black.lightness).toBeCloseTo(0, 2);
    expect(white.dominantColors).toEqual(['#ffffff']);
    expect(white.hasAlpha).toBe(false);
  });

  it('ignores fully transparent pixels and reports alpha', async () => {
    // Left half transparent (but red underneath), right half opaque blue.
    const raw = Buffer.alloc(40 * 20 * 4);
    for (let y = 0; y < 20; y++) {
      for (let x = 0; x < 40; x++) {
        const i = (y * 40 + x) * 4;
        raw.set(x < 20 ? [255, 0, 0, 0] : [0, 0, 255, 255], i);
      }
    }
    const facts = await analyzeImage(
      await sharp(raw, { raw: { width: 40, height: 20, channels: 4 } })
        .png()
        .toBuffer(),
    );
    expect(facts.hasAlpha).toBe(true);
    expect(near(facts.dominantColors, BLUE)).toBe(true);
    expect(near(facts.dominantColors, RED)).toBe(false);
  });

  it('merges near shades into one colour and keeps at most five', () => {
    // 10 distinct, well separated hues plus near shades of the first.
    const hues: Rgb[] = [
      [250, 10, 10],
      [246, 14, 12],
      [10, 250, 10],
      [10, 10, 250],
      [250, 250, 10],
      [10, 250, 250],
      [250, 10, 250],
      [128, 128, 128],
      [0, 0, 0],
      [255, 255, 255],
      [255, 128, 0],
    ];
    const pixels = Buffer.alloc(hues.length * 100 * 4);
    hues.forEach((rgb, h) => {
      for (let p = 0; p < 100; p++) pixels.set([...rgb, 255], (h * 100 + p) * 4);
    });
    const { dominantColors } = summarisePixels(pixels);
    expect(dominantColors).toHaveLength(5);
    // The two reds merged, so red has twice the weight of any other colour and comes first.
    expect(colourDistance(parseHexColour(dominantColors[0])!, [248, 12, 11])).toBeLessThan(3);
  });

  it('refuses bytes that are not an image', async () => {
    const error = await analyzeImage(Buffer.from('just some text, not a picture\n')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableImageError);
    expect((error as Error).message).toBe(
      'The file at image_url is not an image this service reads (jpeg, png, webp, gif, avif)',
    );
  });

  it('refuses formats it does not read (svg, tiff)', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    );
    await expect(analyzeImage(svg)).rejects.toBeInstanceOf(UnreadableImageError);
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
      .tiff()
      .toBuffer();
    await expect(analyzeImage(tiff)).rejects.toBeInstanceOf(UnreadableImageError);
  });

  it('refuses a truncated image', async () => {
    const jpeg = await halves().jpeg().toBuffer();
    await expect(analyzeImage(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).rejects.toBeInstanceOf(
      UnreadableImageError,
    );
  });

  it('refuses a header declaring more than 40 megapixels before decoding it', async () => {
    const bomb = pngHeader(50_000, 50_000);
    expect(bomb.length).toBeLessThan(200);
    const error = await analyzeImage(bomb).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableImageError);
    expect((error as Error).message).toBe('The file at image_url is larger than 40 megapixels');
  });

  it('accepts exactly the pixel limit and refuses one row more', async () => {
    expect(MAX_IMAGE_PIXELS).toBe(40_000_000);
    await expect(identifyImage(pngHeader(8000, 5000))).resolves.toMatchObject({
      width: 8000,
      height: 5000,
      format: 'png',
    });
    await expect(identifyImage(pngHeader(8000, 5001))).rejects.toBeInstanceOf(UnreadableImageError);
  });

  it('names the image as asked in its messages', async () => {
    await expect(identifyImage(Buffer.from('nope'), 'The cover image')).rejects.toThrow(
      /^The cover image is not an image/,
    );
  });
});
