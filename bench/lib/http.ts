/** A JSON call to one of the bench's processes; throws on an unexpected status, with the answer. */
export async function call<T = any>(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; expect?: number[] } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = (text ? JSON.parse(text) : undefined) as T;
  const expected = options.expect ?? [200, 201];
  if (!expected.includes(response.status)) {
    throw new Error(
      `${method} ${url} answered ${response.status} (expected ${expected.join('/')}): ${text.slice(0, 500)}`,
    );
  }
  return { status: response.status, body };
}

/** Runs `task` over `items` with at most `concurrency` at a time; answers the results in order. */
export async function inParallel<I, O>(
  items: I[],
  concurrency: number,
  task: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  const results: O[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
