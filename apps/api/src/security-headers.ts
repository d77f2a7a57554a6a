import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, RouteOptions } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
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
function routeHeaders(url: string, config: HttpConfig): HelmetOptions | undefined {
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
 * The headers helmet sets with `options`, as name and value pairs in helmet's order. With no
 * function among the directives (none here), helmet sets the same headers on every answer, so they
 * are computed once per set of options instead of building helmet's middleware per request.
 */
export function helmetHeaders(options: HelmetOptions): [string, string][] {
  const headers: [string, string][] = [];
  const response = {
    setHeader: (name: string, value: string) => void headers.push([name, value]),
    // Helmet drops X-Powered-By, which nothing here sets.
    removeHeader: () => undefined,
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/** Where a route's computed security headers ride: its config, read back through request.routeOptions. */
interface SecurityHeadersConfig {
  securityHeaders?: [string, string][];
}

/** The security headers' settings of every answer, unless its route has its own (`routeHeaders`). */
export function securityHeaderDefaults(config: HttpConfig): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: LOCKED },
    frameguard: { action: 'deny' },
    hsts: config.baseUrl.startsWith('https://') ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  };
}

/**
 * Security headers on every answer: nosniff, no framing, a Content-Security-Policy that allows
 * nothing on JSON and what each HTML page needs on the pages, and HSTS when the service is served
 * over https (PUBLIC_BASE_URL). Each route's headers are helmet's for its settings (`routeHeaders`
 * over the defaults), computed when the route is added; a request no route matches gets the defaults.
 */
export function registerSecurityHeaders(fastify: FastifyInstance, config: HttpConfig): void {
  const defaults = securityHeaderDefaults(config);
  const defaultHeaders = helmetHeaders(defaults);
  // Before any route exists, so that each is given its own headers as it is added.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const own = routeHeaders(route.url, config);
    if (own)
      route.config = {
        ...route.config,
        securityHeaders: helmetHeaders({ ...defaults, ...own } as HelmetOptions),
      } as RouteOptions['config'];
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    const headers = (request.routeOptions.config as SecurityHeadersConfig).securityHeaders ?? defaultHeaders;
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
}
