import { Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { AsBoolean, AsDuration, defineSettings, Setting, SettingsGroup, type HttpConfig } from '@app/core';

/**
 * Values used when a variable is unset in a development or test process, so `npm start` works on a
 * fresh clone. Only the public API key: it identifies the client app and is no secret. JWT_SECRET and
 * ENCRYPTION_KEY are generated per installation instead (libs/core/src/config/development-secrets.ts).
 */
export const DEVELOPMENT_DEFAULTS = {
  PUBLIC_API_KEY: 'sf_public_development_key',
} as const;

/** A whole number of at least 1. */
const Positive = (): PropertyDecorator => (target, property) => {
  for (const decorate of [Type(() => Number), IsInt(), Min(1)]) decorate(target, property);
};

export class AuthConfig extends SettingsGroup {
  @Setting(
    'HS256 key of the access tokens, at least 32 characters. Generated ' +
      'in development and test (docs/configuration.md § Secrets).',
    {
      default: 'generated in development and test',
      requiredInProduction: true,
      developmentSecret: 'JWT_SECRET',
    },
  )
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  JWT_SECRET?: string;

  @Setting('`aud` claim written into and required of access tokens.')
  @IsString()
  JWT_AUDIENCE = 'authenticated';

  @Setting(
    'Identifies the client app (role `anon`), at least 16 characters: sent as the `apikey` ' +
      'header (or Bearer) to sign up and in. Public by design; the development value is documented.',
    { default: '`sf_public_development_key` (development, test)', requiredInProduction: true },
  )
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  PUBLIC_API_KEY?: string;

  @Setting(
    'With `ADMIN_PASSWORD`: the one admin, created at boot. Set both or neither; ' +
      'admins cannot sign up. A new e-mail makes the former admin a merchant and ends ' +
      'its sessions; one held by another account stops the start. Unset: admins stay.',
  )
  @IsOptional()
  @IsEmail()
  ADMIN_EMAIL?: string;

  @Setting(
    "The admin's password, at least 8 characters. A changed one replaces the " +
      'stored password at the next boot and ends every session of the admin.',
  )
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'must be at least 8 characters' })
  ADMIN_PASSWORD?: string;

  @Setting(
    'Password sign-in attempts per client address per `SIGNIN_WINDOW_SECONDS`, successes included. While ' +
      'Redis is unreachable password sign-in answers 503 `service_unavailable` rather than go uncounted.',
  )
  @Positive()
  SIGNIN_LIMIT_PER_IP = 30;

  @Setting('Failed password attempts per account from one client address per `SIGNIN_WINDOW_SECONDS`.')
  @Positive()
  SIGNIN_LIMIT_PER_EMAIL = 10;

  @Setting('Window of the two limits above, in seconds.')
  @Positive()
  SIGNIN_WINDOW_SECONDS = 300;

  @Setting(
    'Failed password attempts per account in any 60 minutes from addresses it has not signed in ' +
      'from (docs/authentication.md § Sign-in limits); past it only its known addresses may try.',
  )
  @Positive()
  SIGNIN_ACCOUNT_FAILURES_PER_HOUR = 100;

  @Setting('Failed password attempts per account in any 60 minutes from its known addresses, all of them together.')
  @Positive()
  SIGNIN_KNOWN_FAILURES_PER_HOUR = 50;

  @Setting('How long (days, 1–365) an address stays known to an account after a successful password sign-in from it.')
  @Positive()
  @Max(365)
  SIGNIN_KNOWN_ADDRESS_DAYS = 30;

  @Setting(
    'Whether a new account must use the link or code mailed to it before signing in with ' +
      'its password (else 400 `email_not_confirmed`), and a new address be confirmed on it.',
    { default: '`true` in production, else `false`' },
  )
  @IsOptional()
  @AsBoolean()
  @IsBoolean()
  AUTH_CONFIRM_EMAIL?: boolean;

  @Setting(
    'How long an e-mailed link or 6-digit code (sign-up, recovery, ' +
      'e-mail change) works, once: `30m`, `1h` or seconds (60 s to 7 days).',
    { default: '`1h`' },
  )
  @AsDuration()
  @IsInt({ message: 'AUTH_OTP_TTL must be a duration such as 1h, 30m or 3600 (seconds)' })
  @Min(60)
  @Max(7 * 24 * 3600)
  AUTH_OTP_TTL = 3600;

  @Setting(
    'A session signed in this recently (a recovery link counts) may set a new password without ' +
      '`current_password`; an older one must send it. A duration: `24h`, `15m` or seconds.',
    { default: '`24h`' },
  )
  @AsDuration()
  @IsInt({ message: 'AUTH_RECENT_SIGN_IN must be a duration such as 24h, 15m or 600 (seconds)' })
  @Min(0)
  AUTH_RECENT_SIGN_IN = 24 * 3600;

  @Setting(
    "A refresh token presented again this soon after its rotation returns the session's current tokens " +
      '(two tabs refreshing at once stay signed in); later reuse ends the session. Up to `1h`: `10s`, `1m` or ' +
      'seconds; `0`: none.',
    { default: '`10s`' },
  )
  @AsDuration()
  @IsInt({ message: 'AUTH_REFRESH_REUSE_INTERVAL must be a duration such as 10s, 1m or 10 (seconds)' })
  @Min(0)
  @Max(3600)
  AUTH_REFRESH_REUSE_INTERVAL = 10;

  @Setting('Where e-mailed links send the browser when the request named no allowed `redirect_to`.', {
    default: 'the first `ALLOWED_REDIRECT_ORIGINS`',
  })
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  AUTH_SITE_URL?: string;

  @Setting(
    'Account e-mails to one address per `AUTH_MAIL_WINDOW_SECONDS`, counted ' +
      'whether or not an account has it; over it: 429 `over_email_send_rate_limit`.',
  )
  @Positive()
  AUTH_MAIL_LIMIT_PER_EMAIL = 5;

  @Setting(
    'Requests that send account e-mails (`recover`, `resend`, `otp`, sign-up, an e-mail change) ' +
      'per client address per `AUTH_MAIL_WINDOW_SECONDS`.',
  )
  @Positive()
  AUTH_MAIL_LIMIT_PER_IP = 30;

  @Setting('Window of the two limits above, in seconds.')
  @Positive()
  AUTH_MAIL_WINDOW_SECONDS = 3600;

  @Setting(
    'Failed store-key lookups (an `sk_…` no live key has) per client address per minute, counted ' +
      'in Redis across instances; over it the address gets 429 `RATE_LIMITED` with `Retry-After` ' +
      'for the rest of the minute, before any lookup. Not enforced while Redis is unreachable.',
  )
  @Positive()
  STORE_KEY_FAILURES_PER_MINUTE = 20;

  @Setting('`/auth/v1/verify` calls per client address per `AUTH_VERIFY_WINDOW_SECONDS`, right or wrong.')
  @Positive()
  AUTH_VERIFY_LIMIT_PER_IP = 30;

  @Setting('Window of the limit above, in seconds.')
  @Positive()
  AUTH_VERIFY_WINDOW_SECONDS = 300;

  @Setting(
    'Wrong 6-digit codes per address in any 60 minutes, from all client addresses together; ' +
      'past it even the right code waits. Redis unreachable: the account routes answer 503.',
  )
  @Positive()
  AUTH_VERIFY_FAILURES_PER_EMAIL = 10;

  @Setting(
    'Google OAuth client. With `GOOGLE_CLIENT_SECRET` it enables Google ' +
      'sign-in; without, `/auth/v1/authorize` answers 400 `provider_disabled`.',
  )
  @IsOptional()
  @IsString()
  GOOGLE_CLIENT_ID?: string;

  @Setting('Google OAuth client secret.')
  @IsOptional()
  @IsString()
  GOOGLE_CLIENT_SECRET?: string;

  @Setting('Expected ID-token issuer.')
  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_ISSUER = 'https://accounts.google.com';

  @Setting("Google's consent page (overridable for tests).")
  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_AUTHORIZATION_URL = 'https://accounts.google.com/o/oauth2/v2/auth';

  @Setting("Google's token endpoint.")
  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

  @Setting("Google's signing keys, to verify ID tokens.")
  @IsUrl({ require_tld: false, require_protocol: true })
  GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

  override problems(): string[] {
    return Boolean(this.ADMIN_EMAIL) === Boolean(this.ADMIN_PASSWORD)
      ? []
      : ['ADMIN_EMAIL / ADMIN_PASSWORD: set both to create the admin account, or neither'];
  }

  // loadSettings sets the secret (from the environment, or generated in development and test); settings
  // built any other way have none rather than a value everyone knows.
  get jwtSecret(): string {
    if (!this.JWT_SECRET) throw new Error('JWT_SECRET is unset (build the settings with loadSettings)');
    return this.JWT_SECRET;
  }

  get publicApiKey(): string {
    return this.PUBLIC_API_KEY ?? DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY;
  }

  /** AUTH_CONFIRM_EMAIL, or its default: on in production, off in development and test. */
  get requireEmailConfirmation(): boolean {
    return this.AUTH_CONFIRM_EMAIL ?? this.isProduction;
  }

  get googleConfigured(): boolean {
    return Boolean(this.GOOGLE_CLIENT_ID && this.GOOGLE_CLIENT_SECRET);
  }

  /** Where e-mailed links lead when the request named no allowed `redirect_to`. */
  siteUrl(http: HttpConfig): string {
    return this.AUTH_SITE_URL ?? http.ALLOWED_REDIRECT_ORIGINS[0] ?? http.baseUrl;
  }

  /**
   * `redirect_to` when it is on ALLOWED_REDIRECT_ORIGINS, else AUTH_SITE_URL (as GoTrue falls back to its site URL).
   */
  redirectTarget(redirectTo: unknown, http: HttpConfig): string {
    return typeof redirectTo === 'string' && http.allowsRedirectTo(redirectTo) ? redirectTo : this.siteUrl(http);
  }
}

export const authConfig = defineSettings('auth', '@app/auth', AuthConfig, {
  description: 'Accounts, sessions and their tokens, sign-in limits, account e-mails, Google sign-in, the admin.',
});
