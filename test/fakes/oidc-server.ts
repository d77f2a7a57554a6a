import { createHash, randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { readBody } from './http-body.js';

/**
 * A small fake Google (OpenID Connect provider) for e2e tests: a real HTTP server on 127.0.0.1.
 *
 * There is no consent page: the test plays the browser and "approves" a sign-in with `issueCode()`,
 * giving the PKCE challenge and nonce it read from the app's /authorize redirect. The token endpoint
 * then checks what a real provider checks (client_secret_post credentials, redirect_uri, single-use
 * code, S256(code_verifier) == code_challenge) and answers with an RS256 ID token whose keys are
 * served at /jwks. Every request is recorded for assertions.
 */

/** SHA-256 of a PKCE code verifier, base64url (RFC 7636 S256). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export interface FakeOidcOptions {
  clientId: string;
  clientSecret: string;
  /** Lifetime of the ID tokens, in seconds (default 3600). */
  idTokenTtlSeconds?: number;
}

/** Ways the fake can misbehave, to prove the relying party checks the ID token. */
export interface IdTokenTampering {
  /** Claims to override in the ID token; `undefined` removes the claim. */
  claims?: Record<string, unknown>;
  /** Sign with a key that is not published at /jwks. */
  signWithUnknownKey?: boolean;
}

export interface IssueCodeOptions {
  /** The code_challenge of the /authorize request being approved. */
  codeChallenge: string;
  /** Defaults to S256; the token endpoint only accepts S256. */
  codeChallengeMethod?: string;
  /** The nonce of the /authorize request; copied into the ID token. */
  nonce?: string;
  /** The redirect_uri of the /authorize request; the token request must repeat it. */
  redirectUri: string;
  email: string;
  emailVerified?: boolean;
  name?: string;
  /** Google's stable subject; defaults to one derived from the e-mail, as Google's is stable per account. */
  sub?: string;
  tamper?: IdTokenTampering;
}

interface IssuedCode extends Required<Omit<IssueCodeOptions, 'nonce' | 'tamper' | 'name'>> {
  nonce?: string;
  name?: string;
  tamper?: IdTokenTampering;
  clientId: string;
  used: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed application/x-www-form-urlencoded body (empty for other requests). */
  form: Record<string, string>;
  status: number;
  /** The OAuth error the fake answered with, if any. */
  error?: string;
  /** For a successful token request: the ID token it returned. */
  idToken?: string;
}

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface TokenResponse {
  access_token: string;
  id_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

export class FakeOidcServer {
  readonly requests: RecordedRequest[] = [];
  private readonly codes = new Map<string, IssuedCode>();

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly options: FakeOidcOptions,
    private readonly jwk: JWK,
    private readonly signingKey: SigningKey,
    private readonly unknownKey: SigningKey,
  ) {}

  static async start(options: FakeOidcOptions): Promise<FakeOidcServer> {
    const kid = `fake-${randomBytes(4).toString('hex')}`;
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const unknown = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    const ready: { fake?: FakeOidcServer } = {};
    const server = createServer((request, response) => {
      void ready.fake!.handle(request, response);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    ready.fake = new FakeOidcServer(server, `http://127.0.0.1:${port}`, options, jwk, privateKey, unknown.privateKey);
    return ready.fake;
  }

  get authorizationUrl(): string {
    return `${this.issuer}/authorize`;
  }

  get tokenUrl(): string {
    return `${this.issuer}/token`;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks`;
  }

  /** The requests the token endpoint received, oldest first. */
  get tokenRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.path === '/token');
  }

  /** The stable subject the fake gives an e-mail address when the test does not choose one. */
  subjectFor(email: string): string {
    return createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 21);
  }

  /** "The user approved the consent page": returns the authorization code Google would send to redirect_uri. */
  issueCode(options: IssueCodeOptions): string {
    const code = `4/${randomBytes(24).toString('base64url')}`;
    this.codes.set(code, {
      codeChallenge: options.codeChallenge,
      codeChallengeMethod: options.codeChallengeMethod ?? 'S256',
      nonce: options.nonce,
      redirectUri: options.redirectUri,
      email: options.email,
      emailVerified: options.emailVerified ?? true,
      name: options.name,
      sub: options.sub ?? this.subjectFor(options.email),
      tamper: options.tamper,
      clientId: this.options.clientId,
      used: false,
    });
    return code;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuer);
    const body = await readBody(request);
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const record: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      form: isForm ? Object.fromEntries(new URLSearchParams(body)) : {},
      status: 200,
    };
    this.requests.push(record);
    try {
      if (record.method === 'GET' && url.pathname === '/jwks') {
        return send(response, record, 200, { keys: [this.jwk] });
      }
      if (record.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
        return send(response, record, 200, {
          issuer: this.issuer,
          authorization_endpoint: this.authorizationUrl,
          token_endpoint: this.tokenUrl,
          jwks_uri: this.jwksUrl,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['client_secret_post'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (url.pathname === '/token') {
        if (record.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'the token endpoint takes POST');
        if (!isForm) throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
        const tokens = await this.token(record.form);
        record.idToken = tokens.id_token;
        return send(response, record, 200, tokens);
      }
      throw new OAuthError(404, 'not_found', `no route ${record.method} ${url.pathname}`);
    } catch (error) {
      const failure = error instanceof OAuthError ? error : new OAuthError(500, 'server_error', String(error));
      record.error = failure.error;
      return send(response, record, failure.status, { error: failure.error, error_description: failure.message });
    }
  }

  private async token(form: Record<string, string>): Promise<TokenResponse> {
    if (form.grant_type !== 'authorization_code')
      throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code');
    if (form.client_id !== this.options.clientId || form.client_secret !== this.options.clientSecret) {
      throw new OAuthError(401, 'invalid_client', 'client_id/client_secret (client_secret_post) are wrong or missing');
    }
    const issued = form.code ? this.codes.get(form.code) : undefined;
    if (!issued) throw new OAuthError(400, 'invalid_grant', 'unknown authorization code');
    if (issued.used) throw new OAuthError(400, 'invalid_grant', 'authorization code already used');
    issued.used = true;
    if (issued.clientId !== form.client_id)
      throw new OAuthError(400, 'invalid_grant', 'code was issued to another client');
    if (form.redirect_uri !== issued.redirectUri)
      throw new OAuthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
    if (issued.codeChallengeMethod !== 'S256')
      throw new OAuthError(400, 'invalid_request', 'only S256 code challenges are supported');
    if (!form.code_verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(form.code_verifier)) {
      throw new OAuthError(400, 'invalid_grant', 'code_verifier is missing or malformed');
    }
    if (s256(form.code_verifier) !== issued.codeChallenge)
      throw new OAuthError(400, 'invalid_grant', 'code_verifier does not match code_challenge');

    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      aud: this.options.clientId,
      azp: this.options.clientId,
      sub: issued.sub,
      email: issued.email,
      email_verified: issued.emailVerified,
      ...(issued.name === undefined ? {} : { name: issued.name }),
      ...(issued.nonce === undefined ? {} : { nonce: issued.nonce }),
      iat: now,
      exp: now + (this.options.idTokenTtlSeconds ?? 3600),
    };
    for (const [claim, value] of Object.entries(issued.tamper?.claims ?? {})) {
      if (value === undefined) delete claims[claim];
      else claims[claim] = value;
    }
    const idToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.jwk.kid!, typ: 'JWT' })
      .sign(issued.tamper?.signWithUnknownKey ? this.unknownKey : this.signingKey);
    return {
      access_token: `ya29.${randomBytes(24).toString('base64url')}`,
      id_token: idToken,
      token_type: 'Bearer',
      expires_in: 3599,
      scope: 'openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile',
    };
  }
}

function send(response: ServerResponse, record: RecordedRequest, status: number, body: unknown): void {
  record.status = status;
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}
