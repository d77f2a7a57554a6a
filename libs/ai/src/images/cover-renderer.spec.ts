import sharp from 'sharp';
import { colourDistance, parseHexColour, type Rgb } from './colour.js';
import { COVER_HEIGHT, COVER_WIDTH, coverLayout, normalizeCover, renderCover } from './cover-renderer.js';
import { UnreadableImageError } from './image-analysis.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function pixel(png: Buffer, x: number, y: number): Promise<Rgb> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

const input = { title: 'Ten summer looks for the beach', style: 'minimal', colors: ['#0ea5e9', '#f97316'] };

describe('renderCover', () => {
  it('draws a 1200×630 PNG', async () => {
    const png = await renderCover(input);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const metadata = await sharp(png).metadata();
    expect(metadata).toMatchObject({ format: 'png', width: COVER_WIDTH, height: COVER_HEIGHT });
    expect([COVER_WIDTH, COVER_HEIGHT]).toEqual([1200, 630]);
  });

  it.each(['minimal', 'bold', 'vintage', 'modern', 'playful', 'elegant', 'grunge zine'])(
    'leaves the top-left corner in the first colour (%s)',
    async (style) => {
      const png = await renderCover({ ...input, style, colors: ['#0ea5e9', '#f97316', '#22c55e'] });
      expect(colourDistance(await pixel(png, 2, 2), [0x0e, 0xa5, 0xe9])).toBeLessThan(3);
    },
  );

  it('accepts #RGB colours', async () => {
    const png = await renderCover({ ...input, colors: ['#f00'] });
    expect(colourDistance(await pixel(png, 2, 2), [255, 0, 0])).toBeLessThan(3);
  });

  it('is deterministic: the same input gives the same bytes', async () => {
    const [a, b] = await Promise.all([renderCover(input), renderCover({ ...input, colors: [...input.colors] })]);
    expect(a.equals(b)).toBe(true);
  });

  it('draws the title: different titles or styles give different images', async () => {
    const base = await renderCover(input);
    const other = await renderCover({ ...input, title: 'Ten winter looks for the mountains' });
    const otherStyle = await renderCover({ ...input, style: 'minimal, airy' });
    expect(base.equals(other)).toBe(false);
    expect(base.equals(otherStyle)).toBe(false);
  });

  it('writes text in a colour that contrasts with the background', async () => {
    // On a white minimal cover the title is dark: some pixels in its box are near-black.
    const png = await renderCover({ title: 'Dark on light', style: 'minimal', colors: ['#ffffff'] });
    const { data } = await sharp(png)
      .extract({ left: 100, top: 130, width: 1000, height: 320 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let dark = 0;
    for (let i = 0; i < data.length; i += 3) if (data[i] < 60 && data[i + 1] < 60 && data[i + 2] < 60) dark++;
    expect(dark).toBeGreaterThan(500);
  });

  it('still renders a very long title and a long unbroken word', async () => {
    const title = `${'An extraordinarily long blog title about everything '.repeat(4)}${'x'.repeat(120)}`;
    const png = await renderCover({
      title: title.slice(0, 200),
      style: 'bold',
      colors: ['#111827', '#fbbf24', '#ef4444', '#10b981', '#6366f1'],
    });
    expect(await sharp(png).metadata()).toMatchObject({ width: 1200, height: 630, format: 'png' });
  });

  it('picks layouts from known style words and hashes the others', () => {
    expect(coverLayout('Minimal')).toBe('minimal');
    expect(coverLayout('very bold, loud')).toBe('bold');
    expect(coverLayout('retro')).toBe('vintage');
    expect(coverLayout('warm & playful')).toBe('playful');
    expect(coverLayout('watercolour dreams')).toBe(coverLayout('Watercolour dreams '));
    const hashed = new Set(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].map((style) => coverLayout(`${style} zz`)),
    );
    expect(hashed.size).toBeGreaterThan(1);
  });
});

describe('normalizeCover', () => {
  it('turns a 1536×1024 JPEG into a 1200×630 PNG, cropped around the centre', async () => {
    // Top and bottom bands red (cropped away by the 1.9:1 frame), a blue middle.
    const jpeg = await sharp({ create: { width: 1536, height: 1024, channels: 3, background: '#ff0000' } })
      .composite([
        { input: { create: { width: 1536, height: 824, channels: 3, background: '#0000ff' } }, left: 0, top: 100 },
      ])
      .jpeg()
      .toBuffer();
    const png = await normalizeCover(jpeg);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1200, height: 630 });
    expect(colourDistance(await pixel(png, 600, 2), [0, 0, 255])).toBeLessThan(10);
  });

  it('keeps a cover that already has the size', async () => {
    const cover = await renderCover(input);
    const png = await normalizeCover(cover);
    expect(await sharp(png).metadata()).toMatchObject({ width: 1200, height: 630, format: 'png' });
  });

  it('refuses what it cannot read', async () => {
    await expect(normalizeCover(Buffer.from('<html>not an image</html>'))).rejects.toBeInstanceOf(UnreadableImageError);
    await expect(normalizeCover(Buffer.alloc(0))).rejects.toBeInstanceOf(UnreadableImageError);
  });

  it('parses colours as the renderer does', () => {
    expect(parseHexColour('#ABC')).toEqual([0xaa, 0xbb, 0xcc]);
    expect(parseHexColour('#0ea5e9')).toEqual([0x0e, 0xa5, 0xe9]);
    expect(parseHexColour('red')).toBeNull();
  });
});
