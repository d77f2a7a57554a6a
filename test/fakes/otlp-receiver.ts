import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { readBody } from './http-body.js';

/** One span as the OTLP/HTTP JSON exporter sends it, with its scope and service. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue;
}

function attributesOf(list: { key: string; value: OtlpValue }[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

/**
 * A collector of our own on 127.0.0.1: accepts OTLP/HTTP JSON exports on POST /v1/traces (the
 * exporter's format) and keeps every span, decoded. Anything else answers 404 and is counted.
 */
export class OtlpReceiver {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** Every span received so far. */
    readonly spans: ReceivedSpan[],
    /** Requests that were not a JSON trace export. */
    readonly refused: string[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const spans: ReceivedSpan[] = [];
    const refused: string[] = [];
    const server = createServer((request, response) => {
      void readBody(request).then((body) => {
        if (
          request.method !== 'POST' ||
          request.url !== '/v1/traces' ||
          !request.headers['content-type']?.startsWith('application/json')
        ) {
          refused.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
          response.writeHead(404).end();
          return;
        }
        const exported = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: OtlpValue }[] };
            scopeSpans: {
              scope: { name: string };
              spans: (Omit<ReceivedSpan, 'scope' | 'service' | 'attributes'> & { attributes: [] })[];
            }[];
          }[];
        };
        for (const resourceSpans of exported.resourceSpans) {
          const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
          for (const scopeSpans of resourceSpans.scopeSpans) {
            for (const span of scopeSpans.spans) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                scope: scopeSpans.scope.name,
                service,
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    return new OtlpReceiver(server, `http://127.0.0.1:${port}`, spans, refused);
  }

  /** The span with this id, if received. */
  span(spanId: string | undefined): ReceivedSpan | undefined {
    return spanId === undefined ? undefined : this.spans.find((span) => span.spanId === spanId);
  }

  /** Whether `span` descends from `ancestor` through received spans. */
  descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
    for (let parent = this.span(span.parentSpanId); parent; parent = this.span(parent.parentSpanId)) {
      if (parent.spanId === ancestor.spanId) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
