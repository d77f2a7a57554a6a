import { load, type LoadResult } from '../lib/load.js';

export interface ApiTargets {
  /** Where the routes live: the API or the baseline server (same paths). */
  url: string;
  token?: string;
  storeId: string;
  productIds: string[];
  /** The server's process id: its CPU time per request is recorded too. */
  pid?: number;
}

export interface ApiSettings {
  durationSec: number;
  warmupSec: number;
  connections: number;
}

export interface ApiResults {
  read: LoadResult;
  write: LoadResult;
}

const auth = (target: ApiTargets): Record<string, string> =>
  target.token ? { authorization: `Bearer ${target.token}` } : {};

/** The authenticated read: the store's first page of products. */
export function measureRead(target: ApiTargets, settings: ApiSettings): Promise<LoadResult> {
  return load({
    url: `${target.url}/functions/v1/stores/${target.storeId}/products`,
    method: 'GET',
    headers: auth(target),
    serverPid: target.pid,
    ...settings,
  });
}

/** The authenticated write: an order of one item, of a product picked at random. */
export function measureWrite(target: ApiTargets, settings: ApiSettings): Promise<LoadResult> {
  const pick = () => target.productIds[Math.floor(Math.random() * target.productIds.length)];
  return load({
    url: `${target.url}/functions/v1/stores/${target.storeId}/orders`,
    method: 'POST',
    headers: auth(target),
    body: () => JSON.stringify({ items: [{ product_id: pick(), quantity: 1 }] }),
    serverPid: target.pid,
    ...settings,
  });
}

export async function measureApi(target: ApiTargets, settings: ApiSettings): Promise<ApiResults> {
  return { read: await measureRead(target, settings), write: await measureWrite(target, settings) };
}
