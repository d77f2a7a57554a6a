import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CREDIT_COSTS, CreditsService, type AiFunction } from '@app/billing';
import { ApiError, queryRows } from '@app/core';
import { composePost, PLATFORM_TEXT_LIMITS, type SocialPlatformId } from '@app/social';
import { CoverStore } from '../covers/cover-store.js';
import { normalizeCover } from '../images/cover-renderer.js';
import { AI_PROVIDER, AiProviderError, type AiProvider } from '../providers/ai-provider.js';
import type {
  GenerateBlogAutopilotDto,
  GenerateBlogCoverDto,
  GenerateProductDto,
  ResearchSocialContextDto,
  SocialGenerateContentDto,
} from './ai.dto.js';
import { normalizeArticle, normalizeInsights, normalizeProduct } from './normalize.js';
import { ProductImageFetcher } from './product-image.fetcher.js';
import { nextLocalSlot } from './suggested-time.js';

/** Who is calling, for which store: the charge's ledger reference is the request id. */
export interface CallContext {
  storeId: string;
  userId: string;
  requestId: string;
}

/**
 * The five AI functions. Each checks what it can before charging (the product photo,
 * the provider's configuration), charges in its own committed transaction, asks the provider
 * outside any transaction, applies the contract's value rules, and refunds the charge when the
 * provider fails or answers something unusable (502).
 */
@Injectable()
export class AiService {
  private readonly logger = new Logger(AiService.name);

  constructor(
    @Inject(AI_PROVIDER) private readonly provider: AiProvider | null,
    private readonly credits: CreditsService,
    private readonly images: ProductImageFetcher,
    private readonly covers: CoverStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  async generateProduct(ctx: CallContext, body: GenerateProductDto) {
    const provider = this.configured();
    const image = await this.images.fetch(body.image_url);
    const { currency } = await this.store(ctx.storeId);
    return this.charged('generate-product', ctx, async (cost) => {
      const product = normalizeProduct(await provider.generateProduct({ image, language: body.language, currency }));
      return { product: { ...product, ai_credits_used: cost } };
    });
  }

  async generateBlogCover(ctx: CallContext, body: GenerateBlogCoverDto) {
    const provider = this.configured();
    return this.charged('generate-blog-cover', ctx, async (cost) => {
      const image = await provider.generateCover({ title: body.title, style: body.style, colors: body.colors });
      const png = await normalizeCover(image.bytes).catch((error: unknown) => {
        throw new AiProviderError('The AI provider answered an image this service cannot read', 'invalid_answer', { cause: error });
      });
      return { image_url: await this.covers.save(ctx.storeId, png), ai_credits_used: cost };
    });
  }

  async generateBlogAutopilot(ctx: CallContext, body: GenerateBlogAutopilotDto) {
    const provider = this.configured();
    return this.charged('generate-blog-autopilot', ctx, async (cost) => {
      const article = normalizeArticle(
        await provider.generateArticle({ topic: body.topic, tone: body.tone, length: body.length, language: body.language }),
      );
      return { article, ai_credits_used: cost };
    });
  }

  async researchSocialContext(ctx: CallContext, body: ResearchSocialContextDto) {
    const provider = this.configured();
    return this.charged('research-social-context', ctx, async (cost) => {
      const insights = normalizeInsights(await provider.researchSocialContext({ query: body.query, platforms: body.platforms }));
      return { insights, ai_credits_used: cost };
    });
  }

  async socialGenerateContent(ctx: CallContext, body: SocialGenerateContentDto) {
    const provider = this.configured();
    const platform = body.platform as SocialPlatformId;
    const [product] = await queryRows<{
      name: string;
      description: string | null;
      price: string;
      category: string | null;
      seo_keywords: string[];
      currency: string;
      timezone: string;
    }>(
      this.txHost.tx,
      `SELECT p.name, p.description, p.price, p.category, p.seo_keywords, s.currency, s.timezone
         FROM products p JOIN stores s ON s.id = p.store_id
        WHERE p.id = $1 AND p.store_id = $2`,
      [body.product_id, ctx.storeId],
    );
    if (!product) throw ApiError.notFound('Product');
    return this.charged('social-generate-content', ctx, async (cost) => {
      const draft = await provider.generateSocialContent({
        product: {
          name: product.name,
          description: product.description,
          price: Number(product.price),
          currency: product.currency.trim(),
          category: product.category,
          seo_keywords: product.seo_keywords ?? [],
        },
        platform,
        tone: body.tone,
        language: body.language,
        textLimit: PLATFORM_TEXT_LIMITS[platform],
      });
      const hour = Number.isInteger(draft.best_hour) && draft.best_hour >= 0 && draft.best_hour <= 23 ? draft.best_hour : 12;
      const postText = typeof draft.text === 'string' ? draft.text.trim() : '';
      if (!postText) throw new AiProviderError("The AI provider's answer is unusable: text is empty", 'invalid_answer');
      const hashtags = (Array.isArray(draft.hashtags) ? draft.hashtags : []).filter((tag) => typeof tag === 'string');
      const post = composePost(platform, postText, hashtags);
      // `text` is the post without its hashtags; text + blank line + hashtags fits the platform.
      const suffix = post.hashtags.length ? `\n\n${post.hashtags.join(' ')}` : '';
      const text = suffix && post.text.endsWith(suffix) ? post.text.slice(0, -suffix.length) : post.text;
      return {
        content: { text, hashtags: post.hashtags, suggested_time: nextLocalSlot(new Date(), product.timezone, hour).toISOString() },
        ai_credits_used: cost,
      };
    });
  }

  private configured(): AiProvider {
    if (!this.provider)
      throw ApiError.notConfigured('The AI provider is not configured on this server (AI_PROVIDER=openai needs AI_API_KEY)');
    return this.provider;
  }

  private async store(storeId: string): Promise<{ currency: string; timezone: string }> {
    const [store] = await queryRows<{ currency: string; timezone: string }>(
      this.txHost.tx,
      `SELECT currency, timezone FROM stores WHERE id = $1`,
      [storeId],
    );
    if (!store) throw ApiError.notFound('Store');
    return { currency: store.currency.trim(), timezone: store.timezone };
  }

  /** Charges, runs `work`, and refunds when it fails; a provider failure becomes 502 UPSTREAM_FAILED. */
  private async charged<T>(fn: AiFunction, ctx: CallContext, work: (cost: number) => Promise<T>): Promise<T> {
    const charge = await this.credits.charge(ctx.storeId, fn, ctx.requestId);
    try {
      return await work(CREDIT_COSTS[fn]);
    } catch (error) {
      await this.credits.refund(charge).catch((refundError: unknown) => {
        this.logger.error({ err: refundError, charge_id: charge.id, store_id: ctx.storeId }, 'refund failed; the charge stands');
      });
      if (error instanceof AiProviderError) {
        this.logger.warn({ function: fn, reason: error.reason, store_id: ctx.storeId, err: error.cause ?? error }, 'AI provider failed');
        throw ApiError.upstreamFailed(`${error.message}. The ${charge.amount} credits were refunded.`);
      }
      throw error;
    }
  }
}
