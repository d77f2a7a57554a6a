import { loggingConfig } from './logging.config.js';
import { loggerParams } from './logging.js';
import { traceIds } from './tracing.js';

const options = (env: Record<string, string>) => {
  const [pinoOptions] = loggerParams(loggingConfig.from({ NODE_ENV: 'test', ...env })).pinoHttp as [Record<string, unknown>, unknown];
  return pinoOptions;
};

describe('loggerParams', () => {
  it('adds the trace ids to each line only while tracing is on', () => {
    expect(options({}).mixin).toBeUndefined();
    expect(options({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).mixin).toBe(traceIds);
  });

  it('outside a span the trace ids are absent, not empty', () => {
    expect(traceIds()).toEqual({});
  });

  it('names who acted on the request line: a store key or a user, nothing for an anonymous caller', () => {
    const customProps = options({}).customProps as (req: object) => object | undefined;
    expect(customProps({ storefrontActor: { type: 'api_key', id: 'k-1' } })).toEqual({ actor: { type: 'api_key', id: 'k-1' } });
    expect(customProps({ storefrontActor: { type: 'user', id: 'u-1' } })).toEqual({ actor: { type: 'user', id: 'u-1' } });
    expect(customProps({})).toBeUndefined();
  });
});
