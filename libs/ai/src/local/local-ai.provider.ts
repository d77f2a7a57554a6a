import { renderCover } from '../images/cover-renderer.js';
import type {
  AiProvider,
  ArticleDraft,
  ArticleInput,
  CoverImage,
  CoverInput,
  InsightsDraft,
  InsightsInput,
  ProductDraft,
  ProductInput,
  SocialContentDraft,
  SocialContentInput,
} from '../providers/ai-provider.js';
import { buildArticle } from './article.js';
import { buildProduct } from './product.js';
import { Seed } from './seed.js';
import { buildInsights, buildSocialContent } from './social.js';
import { templatesFor } from './templates/index.js';

/**
 * `AI_PROVIDER=local` (the default): content generated offline from templates, not by a model, so
 * the service runs with no key and tests get stable answers.
 *
 * - Deterministic: every choice derives from a sha256 of the inputs (see Seed); the same input
 *   always gives the same output.
 * - Languages: en, fr, es, de and pt (pt-BR and pt-PT use pt), by the tag's primary language. Any
 *   other language is answered in English. Social research is always English (its request has no
 *   language).
 * - Covers are really drawn (renderCover); products are described from the image's colours,
 *   proportions and lightness.
 */
export class LocalAiProvider implements AiProvider {
  readonly id = 'local';

  async generateProduct(input: ProductInput, signal?: AbortSignal): Promise<ProductDraft> {
    signal?.throwIfAborted();
    // The image alone seeds the choices: every language then describes the same product.
    return buildProduct(input.image, templatesFor(input.language), Seed.of('product', input.image.bytes));
  }

  async generateCover(input: CoverInput, signal?: AbortSignal): Promise<CoverImage> {
    signal?.throwIfAborted();
    return { bytes: await renderCover(input) };
  }

  async generateArticle(input: ArticleInput, signal?: AbortSignal): Promise<ArticleDraft> {
    signal?.throwIfAborted();
    // Seeded without the language, so translations of one request share their structure.
    return buildArticle(input, templatesFor(input.language), Seed.of('article', input.topic.trim(), input.tone.trim(), input.length));
  }

  async researchSocialContext(input: InsightsInput, signal?: AbortSignal): Promise<InsightsDraft> {
    signal?.throwIfAborted();
    const platforms = [...new Set(input.platforms)].sort();
    return buildInsights(input, Seed.of('insights', input.query.trim().toLowerCase(), ...platforms));
  }

  async generateSocialContent(input: SocialContentInput, signal?: AbortSignal): Promise<SocialContentDraft> {
    signal?.throwIfAborted();
    const { product } = input;
    const seed = Seed.of('social', product.name, input.platform, input.tone.trim().toLowerCase(), String(product.price), product.currency);
    return buildSocialContent(input, templatesFor(input.language), seed);
  }
}
