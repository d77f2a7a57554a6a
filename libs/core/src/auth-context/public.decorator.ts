import { SetMetadata } from '@nestjs/common';

export const ACCESS_KEY = 'storefront:access';

/** Who may call a route: anyone (`public`), a client holding the public key (`anon`), or a signed-in user (default). */
export type RouteAccess = 'public' | 'anon' | 'user';

/** No credentials needed (health, docs, OAuth redirects). */
export const Public = () => SetMetadata(ACCESS_KEY, 'public' satisfies RouteAccess);

/** The public API key (role anon) suffices; a user's token works too. */
export const PublicKeyAllowed = () => SetMetadata(ACCESS_KEY, 'anon' satisfies RouteAccess);
