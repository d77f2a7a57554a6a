import { createHmac } from 'node:crypto';
import { plainToInstance, Transform, Type } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import {
  getMetadataStorage,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
  type ValidationError,
} from 'class-validator';
import { developmentSecrets, type DevelopmentSecrets } from './development-secrets.js';

/**
 * Values used when a variable is unset in a development or test process, so `npm start` works on a
 * fresh clone. Only the public API key: it identifies the client app and is no secret. JWT_SECRET and
 * ENCRYPTION_KEY are generated per installation instead (development-secrets.ts).
 */
export const DEVELOPMENT_DEFAULTS = {
  PUBLIC_API_KEY: 'sf_public_development_key',
} as const;

/** The login roles requests and workers use unless DATABASE_REQUEST_URL / DATABASE_SERVICE_URL name others. */
export const REQUEST_LOGIN = 'storefront_app';
export const SERVICE_LOGIN = 'storefront_service';

/**
 * The owner URL with another login. Its password (when the owner URL has one) is derived from the
 * owner's, so every process of an installation agrees on it and nobody without the owner's can know it.
 */
export function derivedLoginUrl(ownerUrl: string, login: string): string {
  const url = new URL(ownerUrl);
  const ownerPassword = decodeURIComponent(url.password);
  url.username = login;
  url.password = ownerPassword ? createHmac('sha256', ownerPassword).update(`storefront database login ${login}`).digest('hex') : '';
  return url.toString();
}

/** `30d`, `12h`, `15m`, `90s` or plain seconds, as whole seconds; NaN when unreadable. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(text);
  if (!match) return Number.NaN;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** Where development and test processes keep the secrets generated for them, relative to the working directory. */
export const DEVELOPMENT_SECRETS_FILE = '.storefront/development-secrets.json';

const list = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

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

const bool = ({ value }: { value: unknown }) => (typeof value === 'string' ? value === 'true' || value === '1' : value);

/**
 * Every setting the service reads from the environment, validated once at boot.
 * Names are documented in docs/configuration.md.
 */
export class AppConfig {
  // Unset means production: only a process that says it is development or test may run without secrets.
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'production';

  @IsIn(['all', 'api', 'worker'])
  APP_ROLE: 'all' | 'api' | 'worker' = 'all';

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL?: string;

  /**
   * The database, and an administrative login used at start-up only: it creates the database, the
   * roles and their grants, and runs the migrations as the owner role; then it is closed.
   */
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/storefront';

  /** The start-up connection, when it should differ from DATABASE_URL (a managed server's owner login). */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection URL' })
  DATABASE_OWNER_URL?: string;

  /** How requests log in: a role that owns nothing and cannot bypass row-level security. Derived from DATABASE_URL when unset. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection URL' })
  DATABASE_REQUEST_URL?: string;

  /** How the workers (relay, deliveries, publishing, sweeps) log in. Derived from DATABASE_URL when unset. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection URL' })
  DATABASE_SERVICE_URL?: string;

  /**
   * Test-only escape hatch: lets the request login be a role with BYPASSRLS, so a test can check the
   * guards with row-level security out of the way. Refused at load unless NODE_ENV=test, and honoured
   * only there (`requestLoginMayBypassRls`); never a superuser, and never for the service login.
   */
  @Transform(bool)
  @IsBoolean()
  UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS = false;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /**
   * Longest wait for a database connection: a free one of the pool, or a new one to the server. Past
   * it the request answers 503 SERVICE_UNAVAILABLE instead of waiting on a database that is down.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 5000;

  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @IsString()
  REDIS_PREFIX = 'storefront:';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** `json` (one object a line) or `pretty` (pino-pretty, for a terminal); unset: pretty in development, JSON otherwise. */
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  /**
   * OpenTelemetry: set, the process exports traces over OTLP/HTTP to this collector (the exporter adds
   * `/v1/traces`). The tracing preload (`--import ./dist/apps/api/src/instrument.js`) reads it before the
   * app loads; here it is validated and turns on the trace ids in the logs. Unset: no tracing at all.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The `service.name` of the exported spans. */
  @IsString()
  @MinLength(1)
  OTEL_SERVICE_NAME = 'storefront-api';

  /** Which hops in front may set X-Forwarded-For: see `parseTrustedProxies`; unset trusts none. */
  @IsOptional()
  @ValidateBy({
    name: 'trustedProxies',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustedProxies(value) !== null,
      defaultMessage: () =>
        'name the trusted hops: how many proxies are in front (e.g. 1) or their addresses/CIDRs (e.g. 10.0.0.0/8,192.0.2.7); ' +
        '"true" is refused, it would let any client choose its address with X-Forwarded-For',
    },
  })
  TRUST_PROXY?: string;

  /** Origins allowed by CORS; unset: any origin outside production, none in production. */
  @IsOptional()
  @Transform(list)
  @ValidateBy(
    {
      name: 'corsOrigin',
      validator: { validate: (value: unknown) => typeof value === 'string' && (value === '*' || isOrigin(value)) },
    },
    { each: true, message: 'must be origins such as https://shop.example (scheme, host, optional port; no path), or *' },
  )
  CORS_ORIGINS?: string[];

  /** Set: /metrics wants `Authorization: Bearer <METRICS_TOKEN>`. Unset: open in development, closed (404) in production. */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters (openssl rand -hex 16)' })
  METRICS_TOKEN?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  JWT_SECRET?: string;

  @IsString()
  JWT_AUDIENCE = 'authenticated';

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  PUBLIC_API_KEY?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 bytes, base64-encoded (openssl rand -base64 32)' })
  ENCRYPTION_KEY?: string;

  @IsOptional()
  @IsEmail()
  ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'must be at least 8 characters' })
  ADMIN_PASSWORD?: string;

  @Transform(list)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { each: true })
  ALLOWED_REDIRECT_ORIGINS: string[] = ['http://localhost:3000', 'http://localhost:5173'];

  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE = 1200;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNIN_LIMIT_PER_IP = 30;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNIN_LIMIT_PER_EMAIL = 10;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNIN_WINDOW_SECONDS = 300;

  /** Failed password attempts per account per hour from addresses it has not signed in from. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNIN_ACCOUNT_FAILURES_PER_HOUR = 100;

  /** Failed password attempts per account per hour from its known addresses, all of them together. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNIN_KNOWN_FAILURES_PER_HOUR = 50;

  /** How long an address stays known to an account after a successful password sign-in from it. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(365)
  SIGNIN_KNOWN_ADDRESS_DAYS = 30;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNUP_LIMIT_PER_IP = 20;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  SIGNUP_WINDOW_SECONDS = 3600;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  INVITE_TTL_HOURS = 168;

  /** A session ends this long after its sign-in, however often it is refreshed: seconds, or a number with s, m, h or d. */
  @Transform(({ value }) => (typeof value === 'string' ? parseDuration(value) : value))
  @IsInt({ message: 'SESSION_MAX_AGE must be a duration such as 30d, 12h or 3600 (seconds)' })
  @Min(60)
  SESSION_MAX_AGE = 30 * 24 * 3600;

  /**
   * Whether a new account must confirm its e-mail address before it can sign in with its password.
   * Unset: on in production, off in development and test (`requireEmailConfirmation`).
   */
  @IsOptional()
  @Transform(bool)
  @IsBoolean()
  AUTH_CONFIRM_EMAIL?: boolean;

  /** How long an e-mailed link or code (sign-up, recovery, e-mail change) can be used: a duration, 1 hour by default. */
  @Transform(({ value }) => (typeof value === 'string' ? parseDuration(value) : value))
  @IsInt({ message: 'AUTH_OTP_TTL must be a duration such as 1h, 30m or 3600 (seconds)' })
  @Min(60)
  @Max(7 * 24 * 3600)
  AUTH_OTP_TTL = 3600;

  /**
   * A session signed in this recently may set a new password without the current one (as after a
   * recovery link); an older one must send `current_password`.
   */
  @Transform(({ value }) => (typeof value === 'string' ? parseDuration(value) : value))
  @IsInt({ message: 'AUTH_RECENT_SIGN_IN must be a duration such as 24h, 15m or 600 (seconds)' })
  @Min(0)
  AUTH_RECENT_SIGN_IN = 24 * 3600;

  /** Where e-mailed links send the browser when the request named no allowed `redirect_to` (default: the first ALLOWED_REDIRECT_ORIGINS). */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  AUTH_SITE_URL?: string;

  /** Account e-mails (recovery, confirmation, e-mail change) per address they go to, per AUTH_MAIL_WINDOW_SECONDS. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_MAIL_LIMIT_PER_EMAIL = 5;

  /** Requests that send account e-mails (recover, resend, sign-up, e-mail change) per client address, per AUTH_MAIL_WINDOW_SECONDS. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_MAIL_LIMIT_PER_IP = 30;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_MAIL_WINDOW_SECONDS = 3600;

  /** POST and GET /auth/v1/verify per client address, per AUTH_VERIFY_WINDOW_SECONDS, right or wrong. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_VERIFY_LIMIT_PER_IP = 30;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_VERIFY_WINDOW_SECONDS = 300;

  /** Wrong 6-digit codes per e-mail address in any 60 minutes, from every client address together. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  AUTH_VERIFY_FAILURES_PER_EMAIL = 10;

  /** The SMTP server mail goes out through (`smtp://user:pass@host:587`, `smtps://…:465`). Unset: the development mailbox. */
  @IsOptional()
  @Matches(/^smtps?:\/\/[^\s]+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** The sender of every e-mail: an address, or `Name <address>`. */
  @IsString()
  @Matches(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, { message: 'must be an address or "Name <address>"' })
  MAIL_FROM = 'Storefront Platform <no-reply@storefront.localhost>';

  /** Whether this process sends the mail of the outbox (only `worker` and `all` processes do). */
  @Transform(bool)
  @IsBoolean()
  MAIL_RELAY = true;

  /** How often the mail relay looks for mail that is due. */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(60_000)
  MAIL_POLL_INTERVAL_MS = 1000;

  /** Waits before each further attempt of a message the SMTP server did not take; their count is the number of retries. */
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',').map((part) => Number(part.trim())) : value))
  @IsInt({ each: true, message: 'MAIL_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  @Max(86_400_000, { each: true })
  MAIL_RETRY_DELAYS_MS: number[] = [60_000, 300_000, 1_800_000, 3_600_000, 21_600_000];

  /** Longest wait for the SMTP server: connecting, its greeting, and each answer. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(300_000)
  MAIL_SMTP_TIMEOUT_MS = 30_000;

  /** Sent and failed mail, and the development mailbox, are deleted after this many days (0 keeps them). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  MAIL_RETENTION_DAYS = 30;

  /**
   * How long a SIGTERM or SIGINT may take: in-flight requests and background jobs get this long to
   * finish (jobs still running at 80 % of it are handed back to the queue); past it the process exits anyway.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  @Transform(bool)
  @IsBoolean()
  OUTBOX_RELAY = true;

  @Type(() => Number)
  @IsInt()
  @Min(100)
  OUTBOX_SWEEP_INTERVAL_MS = 5000;

  /**
   * How long an acknowledging subscriber (the webhook dispatch, merchant notifications) has to
   * acknowledge a store event after it was published; the relay's next sweep after that publishes it
   * again to the subscribers that have not, with the wait doubling each time (at most an hour).
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  OUTBOX_ACK_TIMEOUT_MS = 30_000;

  /**
   * Dispatched outbox events older than this many days are deleted by the workers (hourly, in
   * batches); undispatched ones never are. 0 keeps them for ever.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  OUTBOX_RETENTION_DAYS = 7;

  /**
   * Finished webhook deliveries (succeeded, failed, cancelled) whose last change is older than this
   * many days are deleted with their attempts by the workers (hourly, in batches): they leave the
   * delivery log. Pending deliveries never are. 0 keeps them for ever.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  DELIVERY_RETENTION_DAYS = 30;

  /**
   * How often the workers look for background jobs a crash or a Redis restart lost: pending webhook
   * deliveries and scheduled posts whose time is more than LOST_JOB_AFTER_MS past are enqueued again.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  JOB_SWEEP_INTERVAL_MS = 30_000;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  LOST_JOB_AFTER_MS = 60_000;

  /** A scheduled post `publishing` this long belongs to a worker that died mid-way; it is closed as interrupted. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SOCIAL_INTERRUPTED_AFTER_MS = 900_000;

  @Transform(bool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  @Transform(bool)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP = false;

  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** Delay before each delivery attempt: the first immediately, then 1 min, 5 min, 30 min, 1 h. */
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',').map((part) => Number(part.trim())) : value))
  @IsInt({ each: true, message: 'WEBHOOK_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  WEBHOOK_RETRY_DELAYS_MS: number[] = [0, 60_000, 300_000, 1_800_000, 3_600_000];

  /** Delivery jobs one worker process runs at once: requests in flight, and attempts being parked. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_WORKER_CONCURRENCY = 8;

  /**
   * Requests in flight to one webhook at a time, across every worker process (slots in Redis); an
   * attempt that finds them all taken is parked, without holding a worker, until one frees.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_ENDPOINT_CONCURRENCY = 2;

  /** Consecutive failed attempts to one webhook (timeouts, errors, non-2xx answers) that open its circuit. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  /** How long an open circuit sends nothing to its webhook before one probe tries it again. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  WEBHOOK_CIRCUIT_COOLDOWN_MS = 60_000;

  @IsOptional()
  @IsString()
  GOOGLE_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  GOOGLE_CLIENT_SECRET?: string;

  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_ISSUER = 'https://accounts.google.com';

  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_AUTHORIZATION_URL = 'https://accounts.google.com/o/oauth2/v2/auth';

  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

  /** Credits granted to every new store. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  STORE_WELCOME_CREDITS = 50;

  /**
   * Overrides of the hourly maxima per AI function, `function:count` comma-separated
   * (`social-generate-content:60,generate-product:100`); functions not named keep their defaults (docs/api.md § AI functions).
   */
  @IsOptional()
  @Matches(/^\s*[a-z-]+\s*:\s*\d{1,6}\s*(,\s*[a-z-]+\s*:\s*\d{1,6}\s*)*$/, {
    message: 'AI_HOURLY_LIMITS must look like "generate-product:100,social-generate-content:60"',
  })
  AI_HOURLY_LIMITS?: string;

  /** `local` (offline, deterministic; the default) or `openai` (any OpenAI-compatible API). */
  @IsIn(['local', 'openai'])
  AI_PROVIDER: 'local' | 'openai' = 'local';

  @IsUrl({ require_tld: false, require_protocol: true })
  AI_BASE_URL = 'https://api.openai.com/v1';

  @IsOptional()
  @IsString()
  AI_API_KEY?: string;

  @IsString()
  @MinLength(1)
  AI_MODEL = 'gpt-4o-mini';

  @IsString()
  @MinLength(1)
  AI_IMAGE_MODEL = 'gpt-image-1';

  /** Longest wait for one provider request (text or image), per attempt. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  AI_TIMEOUT_MS = 60_000;

  /** Retries of a provider request answered 429 or 5xx, or that timed out. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(5)
  AI_MAX_RETRIES = 1;

  /**
   * Waits before the 2nd, 3rd… attempt of a scheduled post whose platform answered 429 or 5xx (a
   * platform's longer Retry-After wins); their count is the number of retries.
   */
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',').map((part) => Number(part.trim())) : value))
  @IsInt({ each: true, message: 'SOCIAL_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  @Max(86_400_000, { each: true })
  SOCIAL_RETRY_DELAYS_MS: number[] = [60_000, 300_000];

  /** `sandbox` (the default): connect and publish against the built-in sandbox, no network; `live`: the platforms' APIs. */
  @IsIn(['sandbox', 'live'])
  SOCIAL_MODE: 'sandbox' | 'live' = 'sandbox';

  /** Longest wait for one request to a social platform's API (live mode). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(120_000)
  SOCIAL_HTTP_TIMEOUT_MS = 15_000;

  /**
   * The environment the settings above were read from. Settings a lib declares itself are read from
   * it (each social platform's, beside its client: libs/social/src/platforms/<id>/), with the same
   * one-line problems (`settingProblem`).
   */
  environment: Readonly<Record<string, string | undefined>> = {};

  /**
   * What the start-up learns from the database (`prepareDatabase`): the key that binds request
   * transactions to their session. Not a setting.
   */
  requestBindingKey?: Buffer;

  get ownerDatabaseUrl(): string {
    return this.DATABASE_OWNER_URL ?? this.DATABASE_URL;
  }

  get requestDatabaseUrl(): string {
    return this.DATABASE_REQUEST_URL ?? derivedLoginUrl(this.ownerDatabaseUrl, REQUEST_LOGIN);
  }

  get serviceDatabaseUrl(): string {
    return this.DATABASE_SERVICE_URL ?? derivedLoginUrl(this.ownerDatabaseUrl, SERVICE_LOGIN);
  }

  /** Whether the start-up accepts a request login with BYPASSRLS: UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS, and only under NODE_ENV=test. */
  get requestLoginMayBypassRls(): boolean {
    return this.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS === true && this.NODE_ENV === 'test';
  }

  /** Set by loadConfig when JWT_SECRET or ENCRYPTION_KEY came from the development secrets file, not the environment. */
  developmentSecretsFile?: string;

  /** LOG_FORMAT, or its default: pretty in development, JSON in production and test. */
  get logFormat(): 'json' | 'pretty' {
    return this.LOG_FORMAT ?? (this.NODE_ENV === 'development' ? 'pretty' : 'json');
  }

  /** Whether this process exports traces (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  get tracingEnabled(): boolean {
    return this.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  }

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
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

  get baseUrl(): string {
    return (this.PUBLIC_BASE_URL ?? `http://localhost:${this.PORT}`).replace(/\/$/, '');
  }

  // loadConfig sets both secrets (from the environment, or generated in development and test); an
  // AppConfig built any other way has none rather than a value everyone knows.
  get jwtSecret(): string {
    if (!this.JWT_SECRET) throw new Error('JWT_SECRET is unset (build the settings with loadConfig)');
    return this.JWT_SECRET;
  }

  get publicApiKey(): string {
    return this.PUBLIC_API_KEY ?? DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY;
  }

  get encryptionKey(): Buffer {
    if (!this.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is unset (build the settings with loadConfig)');
    return Buffer.from(this.ENCRYPTION_KEY, 'base64');
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

  /** AUTH_CONFIRM_EMAIL, or its default: on in production, off in development and test. */
  get requireEmailConfirmation(): boolean {
    return this.AUTH_CONFIRM_EMAIL ?? this.isProduction;
  }

  /** Where e-mailed links lead when the request named no allowed `redirect_to`. */
  get siteUrl(): string {
    return this.AUTH_SITE_URL ?? this.ALLOWED_REDIRECT_ORIGINS[0] ?? this.baseUrl;
  }

  /** `redirect_to` when it is on ALLOWED_REDIRECT_ORIGINS, else AUTH_SITE_URL (as GoTrue falls back to its site URL). */
  redirectTarget(redirectTo: unknown): string {
    return typeof redirectTo === 'string' && this.allowsRedirectTo(redirectTo) ? redirectTo : this.siteUrl;
  }

  get googleConfigured(): boolean {
    return Boolean(this.GOOGLE_CLIENT_ID && this.GOOGLE_CLIENT_SECRET);
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`,
    );
  }
}

/** What a process that is not explicitly development or test must be given (NODE_ENV unset counts as production). */
const REQUIRED_IN_PRODUCTION = ['JWT_SECRET', 'ENCRYPTION_KEY', 'PUBLIC_API_KEY', 'PUBLIC_BASE_URL'] as const;

/** One line of a ConfigError: the variable, its value as given (shortened) or `unset`, and what is wrong. */
export function settingProblem(name: string, raw: string | undefined, reasons: string): string {
  const shown = raw === undefined ? 'unset' : JSON.stringify(raw.length > 60 ? `${raw.slice(0, 57)}...` : raw);
  return `${name} (${shown}): ${reasons}`;
}

function flatten(errors: ValidationError[], env: Record<string, string | undefined>): string[] {
  return errors.map((error) => settingProblem(error.property, env[error.property], Object.values(error.constraints ?? {}).join('; ')));
}

export interface LoadConfigOptions {
  /** The development secrets file (default DEVELOPMENT_SECRETS_FILE in the working directory). */
  secretsFile?: string;
}

/**
 * Reads and validates the environment; throws ConfigError with one line per bad or missing variable.
 * A development or test process without JWT_SECRET or ENCRYPTION_KEY gets the installation's
 * generated ones (created on first use).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, options: LoadConfigOptions = {}): AppConfig {
  const known = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(AppConfig, '', true, false)
      .map((meta) => meta.propertyName),
  );
  const input = Object.fromEntries(Object.entries(env).filter(([key, value]) => value && known.has(key)));
  const config = plainToInstance(AppConfig, input);
  config.environment = Object.freeze({ ...env });
  const problems = flatten(validateSync(config, { skipMissingProperties: false }), env);
  if (config.isProduction) {
    // One line naming every missing secret, so a deployment is fixed in one go.
    const missing = REQUIRED_IN_PRODUCTION.filter((key) => !input[key]);
    if (missing.length > 0) problems.push(`${missing.join(', ')} must be set (NODE_ENV is not development or test)`);
    // Any origin would let every web page call the API with its visitors' tokens.
    if (config.CORS_ORIGINS?.includes('*')) {
      problems.push('CORS_ORIGINS ("*"): refused when NODE_ENV=production; list the origins of your apps (unset: no browser origin)');
    }
  }
  // Row-level security is the second wall between tenants: only a test may take it away from requests.
  if (config.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS === true && config.NODE_ENV !== 'test') {
    problems.push(
      `UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS (true): refused when NODE_ENV=${config.NODE_ENV}; it is for tests only (NODE_ENV=test), it takes row-level security away from requests`,
    );
  }
  if (Boolean(config.ADMIN_EMAIL) !== Boolean(config.ADMIN_PASSWORD)) {
    problems.push('ADMIN_EMAIL / ADMIN_PASSWORD: set both to create the admin account, or neither');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (!config.isProduction && (!config.JWT_SECRET || !config.ENCRYPTION_KEY)) {
    const file = options.secretsFile ?? DEVELOPMENT_SECRETS_FILE;
    let secrets: DevelopmentSecrets;
    try {
      secrets = developmentSecrets(file);
    } catch (error) {
      throw new ConfigError([`JWT_SECRET, ENCRYPTION_KEY: unset, and ${(error as Error).message}`]);
    }
    config.JWT_SECRET ??= secrets.JWT_SECRET;
    config.ENCRYPTION_KEY ??= secrets.ENCRYPTION_KEY;
    config.developmentSecretsFile = file;
  }
  return config;
}
