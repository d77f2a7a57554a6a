import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-strategy';
import type { AnonPrincipal, Principal } from '@app/core';

type Verify = (request: FastifyRequest, done: (error: Error | null, user?: Principal | false | null) => void) => void;

/** A passport strategy that hands the whole request to its verify callback (no options, no session). */
export class RequestStrategy extends Strategy {
  constructor(private readonly verify: Verify) {
    super();
  }

  // passport's typings assume Express; under Nest's Fastify adapter the request is Fastify's.
  override authenticate(request: Parameters<Strategy['authenticate']>[0]): void {
    this.verify(request as unknown as FastifyRequest, (error, user) => {
      if (error) this.error(error);
      else if (user) this.success(user);
      else this.fail(401);
    });
  }
}

const ANON: AnonPrincipal = Object.freeze({ kind: 'anon' });

/**
 * `api-key`: the public API key (in the `apikey` header or as the Bearer token) makes the caller
 * `anon`. It succeeds only when no other Bearer token came along, so a bad user token is never
 * quietly downgraded to the key.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(RequestStrategy, 'api-key') {
  validate(request: FastifyRequest): AnonPrincipal | null {
    return request.credentials?.kind === 'public_key' ? ANON : null;
  }
}
