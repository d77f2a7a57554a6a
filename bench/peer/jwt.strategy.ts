import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';

/** What the guard puts on the request: the user the token names. */
export interface AuthUser {
  userId: string;
}

/**
 * The textbook passport-jwt strategy: the Bearer token's HS256 signature, audience and expiry are
 * checked with the API's JWT_SECRET, and its `sub` is trusted as is. Unlike the API, no database
 * round trip confirms that the session behind the token is still open.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: process.env.JWT_SECRET!,
      algorithms: ['HS256'],
      audience: process.env.JWT_AUDIENCE ?? 'authenticated',
    });
  }

  validate(payload: { sub: string }): AuthUser {
    return { userId: payload.sub };
  }
}
