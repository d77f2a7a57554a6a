import { Inject, Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import * as oidc from 'openid-client';
import { GoTrueError, httpConfig, InjectRedis, type HttpConfig } from '@app/core';
import { AuthService } from '../auth.service.js';
import type { Verified } from '../accounts/account.service.js';
import { FlowStates } from '../pkce/flow-states.js';
import type { PkceChallenge } from '../pkce/pkce.dto.js';
import { AuthStore } from '../sessions/auth-store.js';
import { SessionOpener } from '../sessions/session-opener.js';
import type { SessionMeta } from '../sessions/session.repository.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

/** A Google sign-in in flight lives this long between /authorize and /callback. */
export const OAUTH_STATE_TTL_SECONDS = 600;

interface PendingSignIn {
  verifier: string;
  nonce: string;
  redirectTo: string;
  /** The app's own PKCE challenge (supabase-js `flowType: 'pkce'`): the callback then returns an auth code. */
  pkce?: PkceChallenge;
}

/** Google sign-in: authorization code flow with state, nonce and PKCE (S256); endpoints come from config. */
@Injectable()
export class GoogleSignInService {
  private readonly logger = new Logger(GoogleSignInService.name);
  private client?: oidc.Configuration;

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
    private readonly auth: AuthService,
    @InjectRedis() private readonly redis: Redis,
    private readonly sessions: SessionOpener,
    private readonly store: AuthStore,
    private readonly flows: FlowStates,
  ) {}

  get callbackUrl(): string {
    return `${this.http.baseUrl}/auth/v1/callback`;
  }

  /** The URL of Google's consent page for this sign-in; its state (and the app's PKCE challenge) is kept 10 minutes. */
  async authorizationUrl(redirectTo: string, pkce?: PkceChallenge): Promise<string> {
    const client = this.configuration();
    const state = oidc.randomState();
    const pending: PendingSignIn = {
      verifier: oidc.randomPKCECodeVerifier(),
      nonce: oidc.randomNonce(),
      redirectTo,
      pkce,
    };
    await this.redis.set(this.stateKey(state), JSON.stringify(pending), 'EX', OAUTH_STATE_TTL_SECONDS);
    return oidc
      .buildAuthorizationUrl(client, {
        redirect_uri: this.callbackUrl,
        response_type: 'code',
        scope: 'openid email profile',
        state,
        nonce: pending.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /** Takes (once) the sign-in a state belongs to; null when unknown, expired or already used. */
  async takePending(state: string): Promise<PendingSignIn | null> {
    const raw = await this.redis.getdel(this.stateKey(state));
    return raw ? (JSON.parse(raw) as PendingSignIn) : null;
  }

  /**
   * Exchanges the code (with the PKCE verifier), checks the ID token and signs the Google user in: a
   * session, or when the app started the sign-in with a PKCE challenge an auth code for it.
   */
  async complete(callbackQuery: Record<string, string>, pending: PendingSignIn, meta: SessionMeta): Promise<Verified> {
    const client = this.configuration();
    const currentUrl = new URL(this.callbackUrl);
    for (const [key, value] of Object.entries(callbackQuery)) currentUrl.searchParams.set(key, value);
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, currentUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: callbackQuery.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      this.logger.warn({ err: error }, 'Google code exchange failed');
      throw new GoTrueError(400, 'bad_oauth_callback', 'Google sign-in could not be completed');
    }
    const email = typeof claims?.email === 'string' ? claims.email : undefined;
    if (!email || claims?.email_verified !== true) {
      throw new GoTrueError(400, 'email_not_confirmed', 'Google did not confirm an e-mail address for this account');
    }
    const name = typeof claims?.name === 'string' ? claims.name : null;
    const pkce = pending.pkce;
    if (!pkce) return { session: await this.auth.signInWithGoogle(email, name, meta) };
    const code = await this.sessions.anonymous(async () => {
      const userId = await this.store.googleAccount(email, name);
      return this.flows.issueCode(userId, { kind: 'google', pkce });
    });
    return { code: code! };
  }

  private configuration(): oidc.Configuration {
    if (!this.config.googleConfigured) {
      throw new GoTrueError(
        400,
        'provider_disabled',
        'Unsupported provider: Google sign-in is not configured on this server',
      );
    }
    if (!this.client) {
      this.client = new oidc.Configuration(
        {
          issuer: this.config.GOOGLE_ISSUER,
          authorization_endpoint: this.config.GOOGLE_AUTHORIZATION_URL,
          token_endpoint: this.config.GOOGLE_TOKEN_URL,
          jwks_uri: this.config.GOOGLE_JWKS_URL,
        },
        this.config.GOOGLE_CLIENT_ID!,
        { client_secret: this.config.GOOGLE_CLIENT_SECRET },
        oidc.ClientSecretPost(this.config.GOOGLE_CLIENT_SECRET),
      );
      // Also check the ID token's signature against GOOGLE_JWKS_URL (openid-client skips it by default, trusting TLS).
      oidc.enableNonRepudiationChecks(this.client);
      // Only development and tests point Google's endpoints at plain-http fakes.
      if (!this.config.isProduction && new URL(this.config.GOOGLE_TOKEN_URL).protocol === 'http:')
        oidc.allowInsecureRequests(this.client);
    }
    return this.client;
  }

  private stateKey(state: string): string {
    return `oauth:google:${state}`;
  }
}
