import { ConfigError, loadConfig } from '@app/core';
import { META_SETTINGS } from './meta-graph.js';
import { platformSettingsProblems } from './registry.js';
import { readSettings } from './platform-settings.js';
import { X_SETTINGS } from './x/x.platform.js';

describe('platform settings', () => {
  it('are read from the environment: defaults when unset, empty counts as unset, optional ones stay undefined', () => {
    const settings = readSettings(X_SETTINGS, loadConfig({ NODE_ENV: 'test', X_CLIENT_ID: 'client', X_CLIENT_SECRET: '' }));
    expect(settings).toEqual({
      X_CLIENT_ID: 'client',
      X_CLIENT_SECRET: undefined,
      X_AUTHORIZE_URL: 'https://x.com/i/oauth2/authorize',
      X_API_URL: 'https://api.x.com',
    });
    expect(readSettings(META_SETTINGS, loadConfig({ NODE_ENV: 'test', META_GRAPH_VERSION: 'v22.0' })).META_GRAPH_VERSION).toBe('v22.0');
  });

  it('a refused value is a ConfigError line in the configuration’s own format', () => {
    const config = loadConfig({ NODE_ENV: 'test', X_API_URL: 'ftp:/nope', META_GRAPH_VERSION: 'latest' });
    expect(() => readSettings(X_SETTINGS, config)).toThrow(ConfigError);
    expect(() => readSettings(X_SETTINGS, config)).toThrow(
      'Invalid configuration: X_API_URL ("ftp:/nope"): X_API_URL must be a URL address',
    );
    // Every platform's, the shared Facebook Login settings once.
    expect(platformSettingsProblems(config)).toEqual([
      'META_GRAPH_VERSION ("latest"): must look like v21.0',
      'X_API_URL ("ftp:/nope"): X_API_URL must be a URL address',
    ]);
    expect(platformSettingsProblems(loadConfig({ NODE_ENV: 'test' }))).toEqual([]);
  });
});
