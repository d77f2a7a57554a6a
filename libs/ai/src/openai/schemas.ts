/**
 * The JSON schemas of the four text functions' answers, as sent in `response_format` (structured
 * outputs, strict mode) and as checked again on our side with ajv before an answer is used.
 *
 * Strict mode wants every property listed in `required` and `additionalProperties: false` on every
 * object. It supports `pattern`, number bounds and `minItems`/`maxItems`, but not `minLength` or
 * `maxLength` (OpenAI rejects a schema that has them), so `wireSchema` strips those two and leaves
 * the limit in the property's `description`; our own validation keeps them.
 */

/** The `response_format.json_schema.name` of each text function. */
export const SCHEMA_NAMES = {
  product: 'product_draft',
  article: 'article_draft',
  insights: 'social_insights',
  socialContent: 'social_content',
} as const;

export type SchemaName = (typeof SCHEMA_NAMES)[keyof typeof SCHEMA_NAMES];

/** A JSON schema object, as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** Length limits of the generated article fields (the usual SEO limits for title and description). */
export const SEO_TITLE_MAX = 70;
export const SEO_DESCRIPTION_MAX = 170;
export const EXCERPT_MAX = 400;

const text = (description: string, maxLength?: number): JsonSchema => ({
  type: 'string',
  minLength: 1,
  ...(maxLength === undefined ? {} : { maxLength }),
  description: maxLength === undefined ? description : `${description} At most ${maxLength} characters.`,
});

const list = (items: JsonSchema, minItems: number, maxItems: number, description: string): JsonSchema => ({
  type: 'array',
  items,
  minItems,
  maxItems,
  description: `${description} ${minItems === maxItems ? minItems : `${minItems} to ${maxItems}`} items.`,
});

const hashtag: JsonSchema = { type: 'string', pattern: '^#\\S+$', description: 'A hashtag: "#" then the tag, no spaces.' };

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const price = (description: string): JsonSchema => ({ type: 'number', exclusiveMinimum: 0, description });

export const PRODUCT_SCHEMA: JsonSchema = object({
  name: text('The product name, in the requested language.'),
  name_en: text('The product name in English.'),
  description: text('A selling description of the product for the store page, in the requested language.'),
  price: price("A plausible retail price in the store's currency, at most 2 decimals."),
  compare_price: price('A "compare at" price, greater than or equal to price, at most 2 decimals.'),
  category: text('A short product category, in the requested language.'),
  seo_keywords: list(text('A search keyword or short phrase.'), 3, 10, 'Search keywords, in the requested language.'),
});

export const ARTICLE_SCHEMA: JsonSchema = object({
  title: text('The article title, plain text.'),
  content: text('The article body as HTML using only <h2>, <p>, <ul> and <li> elements, without attributes.'),
  excerpt: text('A plain-text summary of the article.', EXCERPT_MAX),
  seo_title: text('The title for search engines, plain text.', SEO_TITLE_MAX),
  seo_description: text('The meta description for search engines, plain text.', SEO_DESCRIPTION_MAX),
});

export const INSIGHTS_SCHEMA: JsonSchema = object({
  trending_topics: list(text('A topic people currently talk about.'), 1, 10, 'Trending topics related to the query.'),
  popular_hashtags: list(hashtag, 1, 15, 'Popular hashtags related to the query.'),
  audience_sentiment: text("A short description of the audience's current sentiment about the query."),
  recommendations: list(text('A concrete recommendation.'), 1, 10, 'Recommendations for posting about the query.'),
});

export const SOCIAL_CONTENT_SCHEMA: JsonSchema = object({
  text: text('The post text, without hashtags.'),
  hashtags: list(hashtag, 0, 15, 'Hashtags to append to the post.'),
  best_hour: { type: 'integer', minimum: 0, maximum: 23, description: 'The best hour of the day to post, 0 to 23, local time.' },
});

/** Each schema by its name. */
export const SCHEMAS: Record<SchemaName, JsonSchema> = {
  [SCHEMA_NAMES.product]: PRODUCT_SCHEMA,
  [SCHEMA_NAMES.article]: ARTICLE_SCHEMA,
  [SCHEMA_NAMES.insights]: INSIGHTS_SCHEMA,
  [SCHEMA_NAMES.socialContent]: SOCIAL_CONTENT_SCHEMA,
};

/** Keywords strict mode rejects; our validation still applies them. */
const NOT_SENT = new Set(['minLength', 'maxLength']);

/** The schema as sent to the model: the same, less the keywords strict mode does not accept. */
export function wireSchema(schema: JsonSchema): JsonSchema {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !NOT_SENT.has(key))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return strip(schema) as JsonSchema;
}
