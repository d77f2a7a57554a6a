import { applyDecorators, Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiOperation,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CREDIT_COSTS, type AiFunction } from '@app/billing';
import { CurrentStoreAccess, StoreScoped, type StoreAccess } from '@app/commerce';
import { ApiFunctionRoute, ApiSuccess, CurrentUser, Idempotent, OwnTransactions, type UserPrincipal } from '@app/core';
import {
  GenerateBlogAutopilotDto,
  GenerateBlogCoverDto,
  GenerateProductDto,
  ResearchSocialContextDto,
  SocialGenerateContentDto,
} from './ai.dto.js';
import { AiService, type CallContext } from './ai.service.js';

const error = (code: string, message: string, details?: unknown) => ({ example: { success: false, error: { code, message, details } } });

/** What every charged function documents: its cost, the limits, the refund, idempotency. */
const Charged = (fn: AiFunction, summary: string, description: string) =>
  applyDecorators(
    HttpCode(200),
    OwnTransactions(),
    Idempotent(),
    ApiOperation({
      summary: `${summary} (${CREDIT_COSTS[fn]} credits)`,
      description:
        `${description}\n\nCosts ${CREDIT_COSTS[fn]} AI credits, charged atomically with the store's hourly maximum for this function ` +
        '(see `GET /functions/v1/credits`); a provider failure refunds them. Owners, admins and team members with the `ai` permission.',
    }),
    ApiResponse({
      status: 402,
      description: 'The store has too few credits; nothing charged',
      schema: error('INSUFFICIENT_CREDITS', `This needs ${CREDIT_COSTS[fn]} AI credits; the store has 1`, {
        required: CREDIT_COSTS[fn],
        balance: 1,
      }),
    }),
    ApiTooManyRequestsResponse({
      description: "The store's hourly maximum for this function is reached; `Retry-After` says when the oldest call leaves the window",
      schema: error('RATE_LIMITED', 'Too many requests: at most 20 per 3600 seconds; retry in 1712 s', {
        limit: 20,
        window_seconds: 3600,
        retry_after_seconds: 1712,
      }),
    }),
    ApiBadGatewayResponse({
      description: 'The AI provider failed or answered something unusable; the credits were refunded',
      schema: error('UPSTREAM_FAILED', 'The AI provider did not answer in time. The 5 credits were refunded.'),
    }),
    ApiServiceUnavailableResponse({
      description: 'AI_PROVIDER=openai without AI_API_KEY; nothing charged',
      schema: error('NOT_CONFIGURED', 'The AI provider is not configured on this server (AI_PROVIDER=openai needs AI_API_KEY)'),
    }),
  );

function context(access: StoreAccess, user: UserPrincipal, request: FastifyRequest): CallContext {
  return { storeId: access.storeId, userId: user.userId, requestId: String(request.id) };
}

/** The five AI functions (their contract: README.md § AI functions and credits). */
@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class AiController {
  constructor(private readonly ai: AiService) {}

  @Post('generate-product')
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @Charged(
    'generate-product',
    'Generate a product record from a photo',
    'Fetches `image_url` (public http(s) only, no redirects, ≤ 10 MiB, JPEG/PNG/WebP/GIF/AVIF, ≤ 40 megapixels) and drafts ' +
      'a product in `language` (`name_en` always English). An image that cannot be fetched or read → 422 before any charge. ' +
      '`ai_credits_used` sits inside `product`.',
  )
  @ApiUnprocessableEntityResponse({
    description: 'The image cannot be fetched or read; nothing charged',
    schema: error('UNPROCESSABLE', 'image_url answered HTTP 404', [{ field: 'image_url', message: 'image_url answered HTTP 404' }]),
  })
  @ApiSuccess(200, {
    product: {
      name: 'Mug en céramique bleu nuit',
      name_en: 'Midnight blue ceramic mug',
      description: 'A glazed ceramic mug in deep midnight blue…',
      price: 24.9,
      compare_price: 32,
      category: 'Maison',
      seo_keywords: ['mug', 'céramique', 'bleu'],
      ai_credits_used: 2,
    },
  })
  async generateProduct(
    @Body() body: GenerateProductDto,
    @CurrentStoreAccess() access: StoreAccess,
    @CurrentUser() user: UserPrincipal,
    @Req() request: FastifyRequest,
  ) {
    return { success: true, ...(await this.ai.generateProduct(context(access, user, request), body)) };
  }

  @Post('generate-blog-cover')
  @StoreScoped({ from: 'body', need: 'ai', customers: false, optional: true })
  @Charged(
    'generate-blog-cover',
    'Generate a blog cover image',
    'Renders a 1200×630 PNG from `title`, `style` and `colors` and answers its public URL, served by this server ' +
      '(`/media/covers/<id>.png`). `store_id` may be left out when the caller has exactly one store.',
  )
  @ApiSuccess(200, { image_url: 'http://localhost:3000/media/covers/3b241101-e2bb-4255-8caf-4136c566a962.png', ai_credits_used: 3 })
  async generateBlogCover(
    @Body() body: GenerateBlogCoverDto,
    @CurrentStoreAccess() access: StoreAccess,
    @CurrentUser() user: UserPrincipal,
    @Req() request: FastifyRequest,
  ) {
    return { success: true, ...(await this.ai.generateBlogCover(context(access, user, request), body)) };
  }

  @Post('generate-blog-autopilot')
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @Charged(
    'generate-blog-autopilot',
    'Write a blog article',
    'Writes an article on `topic` in `tone` and `language`; `length` short ≈ 300 words, medium ≈ 750, long ≈ 1400. ' +
      '`content` is sanitised HTML (headings, paragraphs, lists, links; no scripts, styles or event handlers).',
  )
  @ApiSuccess(200, {
    article: {
      title: 'How to care for linen shirts',
      content: '<h2>Why linen</h2><p>…</p>',
      excerpt: 'Linen lasts for years when…',
      seo_title: 'Linen shirt care guide',
      seo_description: 'Wash, dry and iron linen shirts so they last.',
    },
    ai_credits_used: 5,
  })
  async generateBlogAutopilot(
    @Body() body: GenerateBlogAutopilotDto,
    @CurrentStoreAccess() access: StoreAccess,
    @CurrentUser() user: UserPrincipal,
    @Req() request: FastifyRequest,
  ) {
    return { success: true, ...(await this.ai.generateBlogAutopilot(context(access, user, request), body)) };
  }

  @Post('research-social-context')
  @StoreScoped({ from: 'body', need: 'ai', customers: false, optional: true })
  @Charged(
    'research-social-context',
    'Research social media context',
    'Trending topics, popular hashtags (each beginning with `#`), audience sentiment and recommendations for `query` on ' +
      '`platforms`. `store_id` may be left out when the caller has exactly one store.',
  )
  @ApiSuccess(200, {
    insights: {
      trending_topics: ['sustainable sneakers', 'recycled materials'],
      popular_hashtags: ['#sustainablefashion', '#sneakers'],
      audience_sentiment: 'mostly positive',
      recommendations: ['Instagram: post carousels of the making-of'],
    },
    ai_credits_used: 2,
  })
  async researchSocialContext(
    @Body() body: ResearchSocialContextDto,
    @CurrentStoreAccess() access: StoreAccess,
    @CurrentUser() user: UserPrincipal,
    @Req() request: FastifyRequest,
  ) {
    return { success: true, ...(await this.ai.researchSocialContext(context(access, user, request), body)) };
  }

  @Post('social-generate-content')
  @StoreScoped({ from: 'product', in: 'body', need: 'ai', customers: false })
  @Charged(
    'social-generate-content',
    'Write a social post about a product',
    "Writes a post about `product_id` (a product of the caller's stores; that store is charged) for `platform`. " +
      '`text` is the post without its hashtags; `text`, a blank line and the `hashtags` joined by spaces fit the platform’s ' +
      'limit (X 280 weighted, Threads 500, Instagram and TikTok 2200, YouTube 5000, Facebook 63,206). `suggested_time` is the ' +
      "next good slot for the platform in the store's time zone, at least 30 minutes ahead.",
  )
  @ApiSuccess(200, {
    content: {
      text: 'Our midnight blue mug keeps your coffee hot and your mornings calm. Now 24.90 USD.',
      hashtags: ['#mug', '#ceramics', '#coffee'],
      suggested_time: '2026-11-23T11:00:00.000Z',
    },
    ai_credits_used: 1,
  })
  async socialGenerateContent(
    @Body() body: SocialGenerateContentDto,
    @CurrentStoreAccess() access: StoreAccess,
    @CurrentUser() user: UserPrincipal,
    @Req() request: FastifyRequest,
  ) {
    return { success: true, ...(await this.ai.socialGenerateContent(context(access, user, request), body)) };
  }
}
