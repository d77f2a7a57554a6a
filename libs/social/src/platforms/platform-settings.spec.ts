import { ConfigError } from '@app/core';
import { socialConfig } from '../social.config.js';
import { META_SETTINGS } from './meta-graph.js';
import { readSettings } from './platform-settings.js';
import { X_SETTINGS } from './x/x.platform.js';

describe('platform settings', () => {
  it(
    'are read with the social settings: defaults when unset, ' + 'empty counts as unset, optional ones stay undefined',
    () => {
      const settings = readSettings(
        X_SETTINGS,
        socialConfig.from({ NODE_ENV: 'test', X_CLIENT_ID: 'client', X_CLIENT_SECRET: '' }),
      );
      expect(settings).toEqual({
        X_CLIENT_ID: 'client',
        X_CLIENT_SECRET: undefined,
        X_AUTHORIZE_URL: 'https://x.com/i/oauth2/authorize',
        X_API_URL: 'https://api.x.com',
      });
      expect(
        readSettings(META_SETTINGS, socialConfig.from({ NODE_ENV: 'test', META_GRAPH_VERSION: 'v22.0' }))
          .META_GRAPH_VERSION,
      ).toBe('v22.0');
    },
  );

  it('a refused value is a ConfigError line in the configuration’s own format, every platform’s at once', () => {
    const env = { NODE_ENV: 'test', X_API_URL: 'ftp:/nope', META_GRAPH_VERSION: 'latest' };
    expect(() => socialConfig.from(env)).toThrow(ConfigError);
    // Every platform's, the shared Facebook Login settings once, in the registry's order.
    expect(socialConfig.read(env).problems).toEqual([
      'META_GRAPH_VERSION ("latest"): must look like v21.0',
      'X_API_URL ("ftp:/nope"): X_API_URL must be a URL address',
    ]);
    expect(socialConfig.read({ NODE_ENV: 'test' }).problems).toEqual([]);
  });

  it('are listed with the social settings for the reference, each once', () => {
    const names = socialConfig.docs().map((doc) => doc.name);
    expect(names.filter((name) => name === 'META_APP_ID')).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(['SOCIAL_MODE', 'X_CLIENT_ID', 'X_API_URL', 'META_GRAPH_VERSION']));
    expect(socialConfig.docs().find((doc) => doc.name === 'X_API_URL')).toMatchObject({
      default: 'https://api.x.com',
      lib: '@app/social',
    });
  });

  it('a setting no registered platform declares is refused when read', () => {
    expect(() => readSettings({ NOWHERE_URL: X_SETTINGS.X_API_URL }, socialConfig.from({ NODE_ENV: 'test' }))).toThrow(
      'NOWHERE_URL is not a setting of a registered social platform',
    );
  });
});
