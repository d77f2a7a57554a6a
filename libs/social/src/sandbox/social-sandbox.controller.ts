import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, httpConfig, OwnTransactions, Public, TenantDb, type HttpConfig, Query } from '@app/core';
import { CALLBACK_PATH } from '../connect/social-connect.service.js';
import { isSocialPlatform, socialPlatformDefinition } from '../platforms/registry.js';
import { sandboxCode } from '../platforms/sandbox.platform.js';
import { socialConfig, type SocialConfig } from '../social.config.js';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${escape(title)}</title><style>body{font:16px ` +
  `system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}` +
  `.badge{display:inline-block;background:#fde68a;padding:.2rem .5rem;border-radius:.3rem;font-weight:600}` +
  `a.button{display:inline-block;margin:.5rem .5rem 0 0;padding:.6rem ` +
  `1rem;border-radius:.4rem;border:1px solid #333;text-decoration:none}` +
  `#allow{background:#111;color:#fff}</style></head><body><p class="badge">Sandbox ` +
  `— nothing here reaches a real platform</p>${body}</body></html>`;

/**
 * SOCIAL_MODE=sandbox (the default): the consent page a platform would show, and a page for each
 * "published" post, so the whole connect-and-publish flow runs offline (docs/social.md § Sandbox
 * and live). Both pages say they are a sandbox; the consent page only ever sends the
 * browser to this service's own callback.
 */
@ApiExcludeController()
@Controller('functions/v1/social-sandbox')
export class SocialSandboxController {
  constructor(
    @Inject(socialConfig.KEY) private readonly config: SocialConfig,
    private readonly db: TenantDb,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  @Get('authorize')
  @Public()
  @OwnTransactions()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  authorize(@Query() query: Record<string, string | undefined>): string {
    this.sandboxOnly();
    const { platform, state, redirect_uri: redirectUri, code_challenge: challenge } = query;
    if (!isSocialPlatform(platform)) throw ApiError.validation([{ field: 'platform', message: 'Unknown platform' }]);
    if (typeof state !== 'string' || !state || state.length > 512)
      throw ApiError.validation([{ field: 'state', message: 'state is required' }]);
    if (redirectUri !== `${this.http.baseUrl}${CALLBACK_PATH}`) {
      throw ApiError.validation([
        { field: 'redirect_uri', message: "The sandbox only sends the browser back to this service's callback" },
      ]);
    }
    const back = (params: Record<string, string>) =>
      `${redirectUri}?${new URLSearchParams({ ...params, state }).toString()}`;
    const allow = back({ code: sandboxCode(typeof challenge === 'string' ? challenge : null) });
    const deny = back({ error: 'access_denied' });
    const name = socialPlatformDefinition(platform).displayName;
    return page(
      `Connect ${name} (sandbox)`,
      `<h1>Connect a sandbox ${escape(name)} account</h1>` +
        `<p>This page stands in for ${escape(name)}'s consent ` +
        `screen. Allowing connects the store to a sandbox account: ` +
        `posts "published" to it are kept by this service and shown on a sandbox page, not sent anywhere.</p>` +
        `<a class="button" id="allow" href="${escape(allow)}">Allow</a><a ` +
        `class="button" id="deny" href="${escape(deny)}">Deny</a>`,
    );
  }

  @Get('posts/:platform/:id')
  @Public()
  @OwnTransactions()
  @Header('content-type', 'text/html; charset=utf-8')
  async post(@Param('platform') platform: string, @Param('id') id: string): Promise<string> {
    this.sandboxOnly();
    if (!isSocialPlatform(platform) || !/^\d{1,30}$/.test(id)) throw ApiError.notFound('Sandbox post');
    // A public page of a published (sandbox) post, by its platform id as a platform would: no user
    // here, so the request login calls the one narrow function, outside any transaction.
    const [found]: { text: string; published_at: Date }[] = await this.db.unbound.query(
      `SELECT * FROM app_sandbox_post($1)`,
      [`${platform}_${id}`],
    );
    if (!found) throw ApiError.notFound('Sandbox post');
    const name = socialPlatformDefinition(platform).displayName;
    return page(
      `Sandbox ${name} post`,
      `<h1>Sandbox ${escape(name)} post</h1><p>Published to the ` +
        `sandbox on ${new Date(found.published_at).toISOString()}; ` +
        `it was not sent to ${escape(name)}.</p><blockquote ` +
        `style="white-space:pre-wrap">${escape(found.text)}</blockquote>`,
    );
  }

  private sandboxOnly(): void {
    if (this.config.SOCIAL_MODE !== 'sandbox') throw ApiError.notFound('Sandbox');
  }
}
