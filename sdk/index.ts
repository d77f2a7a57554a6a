/**
 * The typed client of the Storefront Platform API (docs/sdk.md): openapi-fetch over the types that
 * openapi-typescript generated from the OpenAPI document (schema.d.ts, from openapi.json; both written
 * by `npm run sdk`). Paths, parameters, bodies and answers are checked by the compiler:
 *
 *   const api = createStorefrontClient({ baseUrl, apiKey, accessToken: () => session?.access_token });
 *   const { data, error } = await api.POST('/functions/v1/stores', { body: { name: 'Linen & Co' } });
 *   if (data) console.log(data.store.id); else console.log(error.error.code);
 *
 * This file is written by hand; openapi.json and schema.d.ts are generated.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The document's schemas by name: `Schemas['StoreView']`, `Schemas['ErrorEnvelope']`, the store events (`Schemas['OrderCreatedEvent']`). */
export type Schemas = components['schemas'];

/** A value, or a function asked for it on every request (a token that is refreshed, a key read late). */
export type Credential = string | (() => string | undefined | Promise<string | undefined>);

export interface StorefrontClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API answers, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /** The public API key (`PUBLIC_API_KEY`), sent as the `apikey` header: sign-up and sign-in need it. */
  apiKey?: Credential;
  /** The signed-in user's access token, sent as `Authorization: Bearer …` (the routes under /functions/v1). */
  accessToken?: Credential;
}

/** A client of every route of the API. Each call answers `{data}` on a 2xx, `{error}` (the error envelope) otherwise, and `response`. */
export type StorefrontClient = Client<paths, 'application/json'>;

async function resolveCredential(credential: Credential | undefined): Promise<string | undefined> {
  return typeof credential === 'function' ? credential() : credential;
}

export function createStorefrontClient(options: StorefrontClientOptions): StorefrontClient {
  const { apiKey, accessToken, ...clientOptions } = options;
  const client = createClient<paths, 'application/json'>(clientOptions);
  client.use({
    async onRequest({ request }) {
      const key = await resolveCredential(apiKey);
      const token = await resolveCredential(accessToken);
      if (key !== undefined && !request.headers.has('apikey')) request.headers.set('apikey', key);
      if (token !== undefined && !request.headers.has('authorization'))
        request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return client;
}
