import type { ProductDraft } from '../functions/generate-product/generate-product.task.js';
import type { ImageFacts } from '../providers/ai-provider.js';
import { colourNames } from './palette.js';
import type { Seed } from './seed.js';
import { en, type Brightness, type CategoryKey, type LocaleTemplates, type Orientation } from './templates/index.js';

/**
 * The offline product draft: every choice comes from the image (its colours, proportions,
 * lightness) and a seed of its bytes, never from the language, so `name` and `name_en` describe
 * the same product.
 */

/** Price bands per category, in the store's currency units. */
const PRICE_BANDS: Record<CategoryKey, readonly [min: number, max: number]> = {
  home_decor: [24, 149],
  apparel: [19, 79],
  accessories: [12, 99],
  art_prints: [14, 89],
  stationery: [9, 39],
  kitchen: [12, 59],
};

const MAX_PRICE = 199.99;

export function orientationOf(width: number, height: number): Orientation {
  const ratio = width / height;
  if (ratio > 1.1) return 'landscape';
  if (ratio < 1 / 1.1) return 'portrait';
  return 'square';
}

const COMMON_RATIOS: readonly [number, number][] = [
  [1, 1],
  [5, 4],
  [4, 3],
  [3, 2],
  [16, 10],
  [16, 9],
  [2, 1],
  [21, 9],
];

/** `3:2`, `4:5`, `16:9`… the nearest common ratio within 3 %, else the plain ratio to one decimal. */
export function ratioLabel(width: number, height: number): string {
  const landscape = width >= height;
  const ratio = landscape ? width / height : height / width;
  for (const [long, short] of COMMON_RATIOS) {
    if (Math.abs(ratio - long / short) / (long / short) <= 0.03)
      return landscape ? `${long}:${short}` : `${short}:${long}`;
  }
  const rounded = Math.round(ratio * 10) / 10;
  return landscape ? `${rounded}:1` : `1:${rounded}`;
}

export function brightnessOf(lightness: number): Brightness {
  if (lightness < 0.35) return 'dark';
  if (lightness > 0.7) return 'light';
  return 'balanced';
}

/** Categories that suit an image's shape; a cut-out (transparent) image suggests an object. */
function categoryCandidates(image: ImageFacts, orientation: Orientation): readonly CategoryKey[] {
  if (image.hasAlpha) return ['accessories', 'apparel', 'kitchen'];
  if (orientation === 'portrait') return ['art_prints', 'apparel', 'home_decor'];
  if (orientation === 'landscape') return ['art_prints', 'home_decor', 'stationery'];
  return ['kitchen', 'accessories', 'stationery', 'home_decor'];
}

const cents = (value: number) => Math.round(value * 100) / 100;

/** A shop-like price ending in .99 within the category's band, and a compare price 20–40 % above. */
function prices(category: CategoryKey, seed: Seed): { price: number; compare_price: number } {
  const [min, max] = PRICE_BANDS[category];
  const price = Math.min(MAX_PRICE, cents(min + Math.floor(seed.fraction('price') * (max - min)) + 0.99));
  const markup = 1.2 + seed.fraction('markup') * 0.2;
  return { price, compare_price: Math.max(price, cents(Math.floor(price * markup) + 0.99)) };
}

function keywords(t: LocaleTemplates, noun: string, category: string, colours: string[], seed: Seed): string[] {
  const candidates = [noun, category, ...colours.slice(0, 2), ...seed.shuffle('keywords', t.keywordExtras).slice(0, 3)];
  return [...new Set(candidates.map((keyword) => keyword.toLocaleLowerCase(t.language).trim()).filter(Boolean))].slice(
    0,
    10,
  );
}

export function buildProduct(image: ImageFacts, t: LocaleTemplates, seed: Seed): ProductDraft {
  const orientation = orientationOf(image.width, image.height);
  const category = seed.pick('category', categoryCandidates(image, orientation));
  const nounIndex = seed.int('noun', 3);
  const collectionIndex = seed.int('collection', en.collections.length);
  const names = colourNames(image.dominantColors);

  const describe = (templates: LocaleTemplates) => {
    const noun = templates.nouns[category][nounIndex];
    const colours = names.slice(0, 3).map((name) => templates.colours[name]);
    const name = templates.productName(noun, templates.collections[collectionIndex], colours[0] ?? null);
    return { noun, colours, name };
  };
  const local = describe(t);
  const english = t === en ? local : describe(en);
  const categoryLabel = t.categories[category];

  return {
    name: local.name,
    name_en: english.name,
    description: t.productDescription({
      name: local.name,
      colours: local.colours,
      orientation,
      ratio: ratioLabel(image.width, image.height),
      brightness: brightnessOf(image.lightness),
      category: categoryLabel,
    }),
    ...prices(category, seed),
    category: categoryLabel,
    seo_keywords: keywords(t, local.noun, categoryLabel, local.colours, seed),
  };
}
