import { helmetHeaders } from './security-headers.js';

describe('helmetHeaders', () => {
  const defaults = {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' as const },
    hsts: false,
  };

  it("is helmet's header set for the options: the CSP as given, DENY, nosniff, no HSTS when turned off", () => {
    const headers = new Map(helmetHeaders(defaults));
    expect(headers.get('Content-Security-Policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(headers.get('X-Frame-Options')).toBe('DENY');
    expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(headers.get('Cross-Origin-Resource-Policy')).toBe('same-origin');
    expect(headers.has('Strict-Transport-Security')).toBe(false);
  });

  it('a route setting replaces only its own header', () => {
    const base = helmetHeaders(defaults);
    const covers = helmetHeaders({ ...defaults, crossOriginResourcePolicy: { policy: 'cross-origin' } });
    expect(new Map(covers).get('Cross-Origin-Resource-Policy')).toBe('cross-origin');
    const others = (list: [string, string][]) => list.filter(([name]) => name !== 'Cross-Origin-Resource-Policy');
    expect(others(covers)).toEqual(others(base));
  });

  it('HSTS when asked for', () => {
    const headers = new Map(helmetHeaders({ ...defaults, hsts: { maxAge: 31_536_000, includeSubDomains: true } }));
    expect(headers.get('Strict-Transport-Security')).toBe('max-age=31536000; includeSubDomains');
  });
});
