import { Type } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength, ValidateBy } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from './settings.js';
import { AsBoolean, AsList } from './transforms.js';

/** proxy-addr's names for address ranges, accepted by Fastify's `trustProxy` beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

// Addresses in their usual notation only: ipaddr.js also reads `1.2.3` and `0x7f.1`, which would more likely be typos.
const isAddress = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);

function isTrustedHop(hop: string): boolean {
  if (PROXY_RANGE_NAMES.includes(hop)) return true;
  const [address, bits, ...rest] = hop.split('/');
  if (bits === undefined) return isAddress(address);
  if (rest.length > 0 || !isAddress(address) || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : 128);
}

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: a number of proxies in front, or the addresses and
 * CIDRs of the trusted ones; `false` (or unset) trusts none. Null for anything else, `true` included:
 * trusting every hop lets a client choose its own address with X-Forwarded-For.
 */
export function parseTrustedProxies(value: string): number | string[] | false | null {
  const text = value.trim();
  if (text === 'false') return false;
  if (/^\d{1,3}$/.test(text)) return Number(text) >= 1 ? Number(text) : null;
  const hops = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return hops.length > 0 && hops.every(isTrustedHop) ? hops : null;
}

/** A browser's Origin header value: scheme, host and optional port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

export class HttpConfig extends SettingsGroup {
  @Setting('HTTP port.')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Setting('Address to listen on.')
  @IsString()
  HOST = '0.0.0.0';

  @Setting(
    'The public address: the OpenAPI server URL, the Google sign-in callback ' +
      '(`<PUBLIC_BASE_URL>/auth/v1/callback`), the social connect callback ' +
      'and the links of e-mails (`<PUBLIC_BASE_URL>/auth/v1/verify?…`).',
    { default: '`http://localhost:<PORT>` (development, test)', requiredInProduction: true },
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL?: string;

  @Setting(
    'The proxies in front, whose `X-Forwarded-For` gives the client address ' +
      '(per-address limits): their count (`1`) or addresses/CIDRs ' +
      '(`10.0.0.0/8,192.0.2.7`). `true` is refused: any client could choose its address.',
    { default: 'unset (none trusted)' },
  )
  @IsOptional()
  @ValidateBy({
    name: 'trustedProxies',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustedProxies(value) !== null,
      defaultMessage: () =>
        'name the trusted hops: how many proxies are in front (e.g. 1) or their addresses/CIDRs (e.g. ' +
        '10.0.0.0/8,192.0.2.7); "true" is refused, it would let any client choose its address with X-Forwarded-For',
    },
  })
  TRUST_PROXY?: string;

  @Setting(
    'Comma-separated origins (`https://shop.example`) allowed by CORS. `*` allows any origin and ' +
      'is refused when `NODE_ENV=production`, where unset means no browser origin may call the API.',
    { default: '`*` outside production; none in production' },
  )
  @IsOptional()
  @AsList()
  @ValidateBy(
    {
      name: 'corsOrigin',
      validator: { validate: (value: unknown) => typeof value === 'string' && (value === '*' || isOrigin(value)) },
    },
    {
      each: true,
      message: 'must be origins such as https://shop.example (scheme, host, optional port; no path), or *',
    },
  )
  CORS_ORIGINS?: string[];

  @Setting(
    'Comma-separated origins a browser may be sent back to: after Google ' +
      'sign-in and social connect (`redirect_to`), and from e-mailed links.',
  )
  @AsList()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { each: true })
  ALLOWED_REDIRECT_ORIGINS: string[] = ['http://localhost:3000', 'http://localhost:5173'];

  @Setting(
    'At least 32 characters. Set: `/metrics` wants `Authorization: Bearer <METRICS_TOKEN>` ' +
      '(else 401). Unset: `/metrics` is open outside production and answers 404 in production.',
  )
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters (openssl rand -hex 16)' })
  METRICS_TOKEN?: string;

  @Setting(
    'Requests per minute per route and per signed-in user (per IP for anyone else), ' +
      'counted in Redis across instances; over it: 429 `RATE_LIMITED` with `Retry-After`. ' +
      'Each instance may let 1 % of it through before Redis has counted it (exact under 100). ' +
      'While Redis is unreachable the limit is not enforced (one warning in the log).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE = 1200;

  @Setting(
    'Sign-ups (`POST /auth/v1/signup`) per client address per `SIGNUP_WINDOW_SECONDS`; over it: ' +
      '429 `over_request_rate_limit` with `Retry-After`. Not enforced while Redis is unreachable.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNUP_LIMIT_PER_IP = 20;

  @Setting('Window of the sign-up limit, in seconds.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNUP_WINDOW_SECONDS = 3600;

  @Setting(
    'Development and tests only: the outgoing HTTP client accepts URLs ' +
      'resolving to loopback, private, link-local or metadata addresses (checked ' +
      'at registration and at connect time), for webhooks and product photos.',
  )
  @AsBoolean()
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  @Setting(
    'Development and tests only: the outgoing HTTP client accepts ' +
      '`http://` URLs, for webhooks and for `generate-product`’s `image_url`.',
  )
  @AsBoolean()
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP = false;

  override problems(): string[] {
    // Any origin would let every web page call the API with its visitors' tokens.
    return this.isProduction && this.CORS_ORIGINS?.includes('*')
      ? [
          'CORS_ORIGINS ("*"): refused when NODE_ENV=production; ' +
            'list the origins of your apps (unset: no browser origin)',
        ]
      : [];
  }

  get baseUrl(): string {
    return (this.PUBLIC_BASE_URL ?? `http://localhost:${this.PORT}`).replace(/\/$/, '');
  }

  /** Fastify's `trustProxy`: false unless TRUST_PROXY names the hops. */
  get trustProxy(): string[] | ((address: string, hop: number) => boolean) | false {
    const hops = this.TRUST_PROXY === undefined ? false : (parseTrustedProxies(this.TRUST_PROXY) ?? false);
    // Fastify ignores a bare number (it cannot tell a proxy from a client that connects directly), so
    // the count is a function: the socket's peer and the next hops-1 X-Forwarded-For entries are proxies.
    if (typeof hops === 'number') return (_address, hop) => hop < hops;
    return hops;
  }

  /** CORS_ORIGINS, or its default: any origin (`*`) outside production, none in production. */
  get corsOrigins(): string[] {
    return this.CORS_ORIGINS ?? (this.isProduction ? [] : ['*']);
  }

  /** Whether a browser may be sent back to `url`: its origin must be on ALLOWED_REDIRECT_ORIGINS. */
  allowsRedirectTo(url: string): boolean {
    try {
      const origin = new URL(url).origin;
      return this.ALLOWED_REDIRECT_ORIGINS.some((allowed) => new URL(allowed).origin === origin);
    } catch {
      return false;
    }
  }
}

export const httpConfig = defineSettings('http', '@app/core', HttpConfig, {
  description:
    'The HTTP side: where the server listens and is reached, who may ' +
    'call it and how often, and what the outgoing client may reach.',
});
