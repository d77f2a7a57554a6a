import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { HttpConfig } from '@app/core';

type ContentSecurityPolicy = Record<string, string[]>;

// The routes whose answers need other headers than the API's JSON (the social sandbox's pages, generated covers).
const SANDBOX_PAGES = '/functions/v1/social-sandbox/';
const COVERS = '/media/covers/';
const QUEUE_DASHBOARD = '/admin/queues';

/**
 * Swagger UI's page, as @nestjs/swagger builds it, loads its scripts, stylesheet and icons from
 * /docs/; what it has inline are styles only: two <style> blocks and one style attribute (hiding
 * its SVG icon sprite) in the page, and the <style> of the logo its top bar draws. These are their
 * hashes, so no other inline style, and no inline script, can run. The e2e test (security-headers)
 * recomputes them from the page and scripts served, so an upgrade that changes them fails there
 * rather than in a browser.
 */
export const SWAGGER_UI_INLINE_STYLES = [
  "'sha256-/jDKvbQ8cdux+c5epDIqkjHbXDaIY8RucT1PmAe8FG4='",
  "'sha256-eaPyLWVdqMc60xuz5bTp2yBRgVpQSoUggte1+40ONPU='",
  "'sha256-ezdv1bOGcoOD7FKudKN0Y2Mb763O6qVtM8LT2mtanIU='",
  "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
];

/**
 * The social sandbox's pages: their <style> block and the style attribute of a post's text (checked like Swagger UI's).
 */
export const SANDBOX_PAGE_INLINE_STYLES = [
  "'sha256-Xy7PQK8hdvQEHC6sKs/HglQQRThE1sFMraqNr1BqUHY='",
  "'sha256-CSr5A7IS9dRw3Uo7TFEY+Os1KKjUjndCqZWzkW4uTaY='",
];

// No page may frame this service's answers (the sandbox's Allow button included), and JSON loads nothing.
const LOCKED: ContentSecurityPolicy = {
  defaultSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
};

function swaggerUiPolicy(config: HttpConfig): ContentSecurityPolicy {
  return {
    ...LOCKED,
    scriptSrc: ["'self'"],
    // 'unsafe-hashes' lets a hash match a style attribute as well as a <style> block; only the hashed ones.
    styleSrc: ["'self'", "'unsafe-hashes'", ...SWAGGER_UI_INLINE_STYLES],
    // swagger-ui.css draws its icons as data: images.
    imgSrc: ["'self'", 'data:'],
    // "Try it out" calls the server the document names (PUBLIC_BASE_URL), which may differ from the address the page
    // was opened at.
    connectSrc: ["'self'", new URL(config.baseUrl).origin],
    formAction: ["'self'"],
  };
}

const SANDBOX_POLICY: ContentSecurityPolicy = {
  ...LOCKED,
  styleSrc: ["'unsafe-hashes'", ...SANDBOX_PAGE_INLINE_STYLES],
};

/**
 * The admins' queue dashboard (Bull Board): its scripts, styles and calls to its own JSON API from
 * this service. Its page and React UI set inline styles, so styles (not scripts) may be inline here.
 */
const QUEUE_DASHBOARD_POLICY: ContentSecurityPolicy = {
  ...LOCKED,
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
};

/**
 * Helmet's settings for one route, where they differ from the defaults: the service's HTML pages and the covers other
 * sites embed.
 */
function routeHeaders(url: string, config: HttpConfig): FastifyHelmetOptions | undefined {
  if (url === '/docs' || url.startsWith('/docs/')) {
    return { contentSecurityPolicy: { useDefaults: false, directives: swaggerUiPolicy(config) } };
  }
  if (url === QUEUE_DASHBOARD || url.startsWith(`${QUEUE_DASHBOARD}/`)) {
    return { contentSecurityPolicy: { useDefaults: false, directives: QUEUE_DASHBOARD_POLICY } };
  }
  if (url.startsWith(SANDBOX_PAGES))
    return { contentSecurityPolicy: { useDefaults: false, directives: SANDBOX_POLICY } };
  // Merchants' sites show generated covers in <img>: a same-origin resource policy would block them.
  if (url.startsWith(COVERS)) return { crossOriginResourcePolicy: { policy: 'cross-origin' } };
  return undefined;
}

/**
 * Security headers on every answer: nosniff, no framing, a Content-Security-Policy that allows
 * nothing on JSON and what each HTML page needs on the pages, and HSTS when the service is served
 * over https (PUBLIC_BASE_URL).
 */
export async function registerSecurityHeaders(fastify: FastifyInstance, config: HttpConfig): Promise<void> {
  // Before any route exists, so that each is given its own settings as it is added.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const headers = routeHeaders(route.url, config);
    if (headers) route.config = { ...route.config, helmet: headers } as RouteOptions['config'];
  });
  await fastify.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: LOCKED },
    frameguard: { action: 'deny' },
    hsts: config.baseUrl.startsWith('https://') ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
}
