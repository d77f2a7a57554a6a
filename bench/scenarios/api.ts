import { isDeepStrictEqual } from 'node:util';
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

/**
 * The peer's smoke check, before it is measured: its first page of the store's products must be the
 * API's (a 200, the same products in the same order, the same next cursor), or the comparison means
 * nothing. Throws, with both answers' gist, when not.
 */
export async function checkPeerPage(apiUrl: string, peerUrl: string, token: string, storeId: string): Promise<number> {
  const page = async (url: string) => {
    const headers = { authorization: `Bearer ${token}` };
    const response = await fetch(`${url}/functions/v1/stores/${storeId}/products`, { headers });
    const text = await response.text();
    if (response.status !== 200) {
      throw new Error(`${url} answered the product list ${response.status}: ${text.slice(0, 300)}`);
    }
    return JSON.parse(text) as { success: boolean; data: Record<string, unknown>[]; next_cursor: string | null };
  };
  const [ours, peer] = [await page(apiUrl), await page(peerUrl)];
  if (!isDeepStrictEqual(ours, peer)) {
    const gist = ({ success, data, next_cursor }: typeof ours) =>
      JSON.stringify({ success, count: data?.length, first: data?.[0], next_cursor });
    throw new Error(`the peer's product page is not the API's:\n  API:  ${gist(ours)}\n  peer: ${gist(peer)}`);
  }
  return peer.data.length;
}
