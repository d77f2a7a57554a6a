import { isJsonMediaType } from './json-bodies.js';

describe('isJsonMediaType', () => {
  it('takes application/json in any case, with an optional UTF-8 charset', () => {
    const charsets = ['application/json; charset=utf-8', 'application/json;charset="UTF8"'];
    const taken = ['application/json', 'Application/JSON', ...charsets];
    for (const type of taken) {
      expect({ type, json: isJsonMediaType(type) }).toEqual({ type, json: true });
    }
  });

  it('refuses other types, other JSON media types, other charsets and other parameters', () => {
    const refused = [
      undefined,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
      'application/jsonx',
      'application/json; charset=latin1',
      'application/json; version=2',
    ];
    for (const type of refused) expect({ type, json: isJsonMediaType(type) }).toEqual({ type, json: false });
  });
});
