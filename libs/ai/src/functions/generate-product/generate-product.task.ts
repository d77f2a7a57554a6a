import { buildProduct } from '../../local/product.js';
import { Seed } from '../../local/seed.js';
import { LOCAL_LANGUAGES, templatesFor } from '../../local/templates/index.js';
import { list, object, price, structuredOutput, text } from '../../openai/schemas.js';
import { unusableAnswer as invalid, type AiTask, type ImageFacts } from '../../providers/ai-provider.js';
import { cents, distinct, plainTextField } from '../normalize.js';
import { plainText } from '../../content/html-sanitizer.js';

/** What a provider is given to draft a product. */
export interface ProductInput {
  image: ImageFacts;
  /** BCP 47 tag, as sent (`en`, `fr`, `pt-BR`). */
  language: string;
  /** The store's ISO 4217 currency, for price suggestions. */
  currency: string;
}

/** Generated product fields (the answer's `product` less `ai_credits_used`). */
export interface ProductDraft {
  name: string;
  name_en: string;
  description: string;
  /** Positive, at most 2 decimals. */
  price: number;
  /** >= price, at most 2 decimals. */
  compare_price: number;
  category: string;
  /** 3–10 items. */
  seo_keywords: string[];
}

export const PRODUCT_OUTPUT = structuredOutput<ProductDraft>(
  'product_draft',
  object({
    name: text('The product name, in the requested language.'),
    name_en: text('The product name in English.'),
    description: text('A selling description of the product for the store page, in the requested language.'),
    price: price("A plausible retail price in the store's currency, at most 2 decimals."),
    compare_price: price('A "compare at" price, greater than or equal to price, at most 2 decimals.'),
    category: text('A short product category, in the requested language.'),
    seo_keywords: list(text('A search keyword or short phrase.'), 3, 10, 'Search keywords, in the requested language.'),
  }),
);

/** Drafting a product from its photo. */
export const GENERATE_PRODUCT_TASK: AiTask<ProductInput, ProductDraft> = {
  name: 'generate-product',
  local: {
    languages: LOCAL_LANGUAGES,
    // The image alone seeds the choices: every language then describes the same product.
    generate: (input) => buildProduct(input.image, templatesFor(input.language), Seed.of('product', input.image.bytes)),
  },
  openai: {
    kind: 'chat',
    output: PRODUCT_OUTPUT,
    system:
      'You write product listings for an online store. Describe only what the photo shows; suggest a realistic ' +
      'retail price. Answer with the JSON object the schema describes.',
    user: ({ image, language, currency }) => {
      const facts = [
        `Photo: ${image.format}, ${image.width}×${image.height} px`,
        image.dominantColors.length ? `dominant colours ${image.dominantColors.join(', ')}` : undefined,
        image.hasAlpha ? 'transparent background' : undefined,
      ].filter(Boolean);
      return [
        {
          type: 'text',
          text: [
            'Write the store listing of the product in this photo.',
            `Language: ${language} (name, description, category ` +
              `and seo_keywords in this language; name_en in English).`,
            `Currency: ${currency} (price and compare_price in this ` +
              `currency, at most 2 decimals, compare_price >= price).`,
            `${facts.join(', ')}.`,
          ].join('\n'),
        },
        { type: 'image_url', image_url: { url: `data:${image.mime};base64,${image.bytes.toString('base64')}` } },
      ];
    },
    // Cents, then the cross-field rule the schema cannot express.
    accept: (draft) => {
      const amount = cents(draft.price);
      const compareAmount = cents(draft.compare_price);
      if (amount <= 0) throw invalid('price rounds to 0');
      if (compareAmount < amount) throw invalid('compare_price is below price');
      return { ...draft, price: amount, compare_price: compareAmount };
    },
  },
};

/**
 * The answer's rules, whichever provider wrote it: prices in cents, compare_price >= price, 3–10 keywords, plain text.
 */
export function normalizeProduct(draft: ProductDraft): ProductDraft {
  const amount = cents(Number(draft.price));
  const compareAmount = cents(Number(draft.compare_price));
  if (!Number.isFinite(amount) || amount <= 0) throw invalid('price is not a positive amount');
  if (!Number.isFinite(compareAmount) || compareAmount < amount) throw invalid('compare_price is below price');
  const keywords = distinct(draft.seo_keywords, 'seo_keywords', plainText).slice(0, 10);
  if (keywords.length < 3) throw invalid('fewer than 3 seo_keywords');
  return {
    name: plainTextField(draft.name, 'name'),
    name_en: plainTextField(draft.name_en, 'name_en'),
    description: plainTextField(draft.description, 'description'),
    price: amount,
    compare_price: compareAmount,
    category: plainTextField(draft.category, 'category'),
    seo_keywords: keywords,
  };
}
