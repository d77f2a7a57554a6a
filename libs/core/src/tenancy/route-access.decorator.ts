import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';

export const ACCESS_KEY = 'storefront:access';

/** Who may call a route: anyone (`public`), a client holding the public key (`anon`), or a signed-in user (default). */
export type RouteAccess = 'public' | 'anon' | 'user';

/** No credentials needed (health, docs, OAuth redirects). The OpenAPI operation declares no security. */
export const Public = () => SetMetadata(ACCESS_KEY, 'public' satisfies RouteAccess);

/**
 * The public API key (role anon) suffices; a user's token works too. The OpenAPI operation declares
 * both schemes as alternatives, so Swagger UI sends the `apikey` header once it is authorized.
 */
export const PublicKeyAllowed = () =>
  applyDecorators(SetMetadata(ACCESS_KEY, 'anon' satisfies RouteAccess), ApiSecurity('apikey'), ApiBearerAuth());
