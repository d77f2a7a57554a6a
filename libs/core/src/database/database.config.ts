import { createHmac } from 'node:crypto';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '../config/settings.js';
import { AsBoolean, AsDuration } from '../config/transforms.js';

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
  url.password = ownerPassword
    ? createHmac('sha256', ownerPassword).update(`storefront database login ${login}`).digest('hex')
    : '';
  return url.toString();
}

const POSTGRES_URL = /^postgres(ql)?:\/\//;
const NOT_POSTGRES = { message: 'must be a postgres:// connection URL' };

export class DatabaseConfig extends SettingsGroup {
  @Setting(
    'The database, and an administrative login used at start-up only: it creates the database when missing, ' +
      'the roles and grants (docs/security.md), runs the migrations as `storefront_owner`, and is closed.',
  )
  @Matches(POSTGRES_URL, NOT_POSTGRES)
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/storefront';

  @Setting("The start-up login, when it should differ from `DATABASE_URL` (e.g. a managed server's owner login).", {
    default: '`DATABASE_URL`',
  })
  @IsOptional()
  @Matches(POSTGRES_URL, NOT_POSTGRES)
  DATABASE_OWNER_URL?: string;

  @Setting(
    'How requests log in: a member of `storefront_rls` that owns nothing and cannot bypass ' +
      "row-level security. Its password, when unset, is derived from the start-up login's.",
    { default: '`DATABASE_URL` as `storefront_app`' },
  )
  @IsOptional()
  @Matches(POSTGRES_URL, NOT_POSTGRES)
  DATABASE_REQUEST_URL?: string;

  @Setting('How the workers (relays, deliveries, publishing, sweeps) log in: a member of `storefront_system`.', {
    default: '`DATABASE_URL` as `storefront_service`',
  })
  @IsOptional()
  @Matches(POSTGRES_URL, NOT_POSTGRES)
  DATABASE_SERVICE_URL?: string;

  @Setting(
    'Test-only; refused unless `NODE_ENV=test`. `true` lets `DATABASE_REQUEST_URL` ' +
      'log in as a role with `BYPASSRLS` (never a superuser), so a test can check the ' +
      'guards with row-level security out of the way; logged as a warning at start.',
  )
  @AsBoolean()
  @IsBoolean()
  UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS = false;

  @Setting('Connections per process and login (1–200).')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @Setting(
    'What the pools connect through: `none` (PostgreSQL itself) or `session` (a pooler that gives each client ' +
      "connection a server connection of its own), where each connection asks for a prepared statement's " +
      'columns on its first run only; or `transaction` (a pooler in transaction mode that keeps prepared ' +
      'statements, such as PgBouncer 1.21+ with `max_prepared_statements`), where every run asks for them, ' +
      'since the pooler may prepare a statement afresh on another server connection after a migration.',
  )
  @IsIn(['none', 'session', 'transaction'])
  DATABASE_POOLER: 'none' | 'session' | 'transaction' = 'none';

  @Setting(
    'Longest wait for a database connection, new or from the pool (100–60000 ms). While the database is ' +
      'unreachable, requests answer 503 `SERVICE_UNAVAILABLE` with `Retry-After` within about this time.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 5000;

  @Setting(
    'A session ends this long after its sign-in, however often it is refreshed (`30d`, `12h`, `90m` ' +
      'or seconds). Kept in the database for the whole installation: give every process the same value.',
    { default: '`30d`' },
  )
  @AsDuration()
  @IsInt({ message: 'SESSION_MAX_AGE must be a duration such as 30d, 12h or 3600 (seconds)' })
  @Min(60)
  SESSION_MAX_AGE = 30 * 24 * 3600;

  /**
   * What the start-up learns from the database (`prepareDatabase`): the key that binds request
   * transactions to their session. Not a setting.
   */
  requestBindingKey?: Buffer;

  override problems(): string[] {
    // Row-level security is the second wall between tenants: only a test may take it away from requests.
    return this.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS && this.nodeEnv !== 'test'
      ? [
          `UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS (true): refused when NODE_ENV=${this.nodeEnv}; ` +
            `it is for tests only (NODE_ENV=test), it takes row-level security away from requests`,
        ]
      : [];
  }

  get ownerDatabaseUrl(): string {
    return this.DATABASE_OWNER_URL ?? this.DATABASE_URL;
  }

  get requestDatabaseUrl(): string {
    return this.DATABASE_REQUEST_URL ?? derivedLoginUrl(this.ownerDatabaseUrl, REQUEST_LOGIN);
  }

  get serviceDatabaseUrl(): string {
    return this.DATABASE_SERVICE_URL ?? derivedLoginUrl(this.ownerDatabaseUrl, SERVICE_LOGIN);
  }

  /**
   * Whether the start-up accepts a request login with BYPASSRLS: UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS, and only under
   * NODE_ENV=test.
   */
  get requestLoginMayBypassRls(): boolean {
    return this.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS === true && this.nodeEnv === 'test';
  }
}

export const databaseConfig = defineSettings('database', '@app/core', DatabaseConfig, {
  description: 'PostgreSQL: the logins of the start-up, the requests and the workers, and the connection pools.',
});
