import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, httpConfig } from '@app/core';
import { SocialConnectController } from './social-connect.controller.js';
import type { ConnectOutcome, SocialConnectService } from './social-connect.service.js';

/** The headers and redirect a handler gave the reply. */
function recordingReply() {
  const headers: [string, string][] = [];
  let redirect: { url: string; status: number } | null = null;
  const reply = {
    header: (name: string, value: string) => {
      headers.push([name, value]);
      return reply;
    },
    redirect: (url: string, status: number) => {
      redirect = { url, status };
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers, redirect: () => redirect };
}

function controller(baseUrl: string, service: Partial<SocialConnectService>) {
  return new SocialConnectController(
    service as SocialConnectService,
    httpConfig.from({ NODE_ENV: 'test', PUBLIC_BASE_URL: baseUrl }),
  );
}

const STARTED: ConnectOutcome = {
  redirectTo: 'https://x.example/i/oauth2/authorize?state=s',
  cookie: { name: 'sf_connect_0123456789abcdef', value: 'secret', maxAgeSeconds: 599 },
};

describe('SocialConnectController: the browser cookie of a connect', () => {
  it(
    'is HttpOnly, SameSite=Lax, limited to the connect routes ' + 'and lives as long as the state; Secure behind https',
    async () => {
      const secure = recordingReply();
      await controller('https://api.shop.example', { open: async () => STARTED }).open({ state: 's' }, secure.reply);
      expect(secure.headers).toEqual([
        [
          'set-cookie',
          'sf_connect_0123456789abcdef=secret; Max-Age=599; ' +
            'Path=/functions/v1/social-connect; HttpOnly; SameSite=Lax; Secure',
        ],
      ]);
      expect(secure.redirect()).toEqual({ url: STARTED.redirectTo, status: 302 });
      // Over plain http (development) a browser would drop a Secure cookie.
      const plain = recordingReply();
      await controller('http://localhost:3000', { open: async () => STARTED }).open({ state: 's' }, plain.reply);
      expect(plain.headers[0][1]).not.toContain('Secure');
    },
  );

  it('is not set when the start URL is opened again; an unknown state is a 400, not a redirect', async () => {
    const again = recordingReply();
    await controller('https://api.shop.example', {
      open: async () => ({ redirectTo: 'https://app.shop.example/social?status=error&error=already_started' }),
    }).open({ state: 's' }, again.reply);
    expect(again.headers).toEqual([]);
    expect(again.redirect()?.url).toContain('already_started');
    const unknown = recordingReply();
    await expect(
      controller('https://api.shop.example', { open: async () => ({ redirectTo: null }) }).open(
        { state: 's' },
        unknown.reply,
      ),
    ).rejects.toBeInstanceOf(ApiError);
    expect(unknown.redirect()).toBeNull();
  });

  it("the callback hands the service the request's cookies and clears the state's cookie", async () => {
    let seen: Record<string, string> | null = null;
    const service = {
      complete: async (_query: unknown, cookies: Record<string, string>) => {
        seen = cookies;
        return { redirectTo: 'https://app.shop.example/social?status=connected' };
      },
    };
    const back = recordingReply();
    const request = {
      headers: { cookie: 'theme=dark; sf_connect_a=one;sf_connect_a=two; broken; =x; sf_connect_b=b=c' },
    };
    await controller('https://api.shop.example', service).callback(
      { state: 'abc' },
      request as FastifyRequest,
      back.reply,
    );
    expect(seen).toEqual({ theme: 'dark', sf_connect_a: 'one', sf_connect_b: 'b=c' });
    expect(back.headers).toHaveLength(1);
    expect(back.headers[0][1]).toMatch(
      /^sf_connect_[0-9a-f]{16}=; Max-Age=0; Path=\/functions\/v1\/social-connect; HttpOnly; SameSite=Lax; Secure$/,
    );
  });
});
