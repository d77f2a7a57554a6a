import { Logger } from '@nestjs/common';
import { ApiError, SafeHttpClient, type HostResolver } from '@app/core';
import { ProductImageFetcher } from './product-image.fetcher.js';

/** A resolver that sends one internal-looking name to a private address. */
const lookup: HostResolver = async (hostname) => {
  if (hostname === 'photos.intranet.test') return [{ address: '10.20.30.40', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('ProductImageFetcher refusals', () => {
  const http = new SafeHttpClient({ allowPrivate: false, allowHttp: false, lookup });
  const fetcher = new ProductImageFetcher(http);
  afterAll(() => http.close());

  async function refusal(url: string): Promise<ApiError> {
    const error = await fetcher.fetch(url).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  it('answers a name that resolves to a private address with a 422 that does not name the address', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const error = await refusal('https://photos.intranet.test/shirt.png');
      expect(error.getStatus()).toBe(422);
      const answer = JSON.stringify(error.getResponse());
      expect(answer).toContain(
        'image_url cannot be fetched: url host photos.intranet.test points to an address that is not allowed',
      );
      expect(answer).not.toMatch(/10\.20|30\.40|\(private\)/);
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ host: 'photos.intranet.test', address: '10.20.30.40' }),
        expect.any(String),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('still names a literal address the caller wrote, with its rule', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementationOnce(() => undefined);
    const error = await refusal('https://192.168.1.7/shirt.png');
    expect(JSON.stringify(error.getResponse())).toContain('url host 192.168.1.7 is not allowed (private)');
  });
});
