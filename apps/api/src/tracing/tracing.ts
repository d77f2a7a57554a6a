import { FastifyOtelInstrumentation } from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BullInstrumentation } from './bull-instrumentation.js';

const UNTRACED_PATHS = new Set(['/health', '/health/ready', '/metrics']);

/**
 * Starts OpenTelemetry tracing for this process: spans exported over OTLP/HTTP (JSON) to
 * OTEL_EXPORTER_OTLP_ENDPOINT, in batches. Instrumented: incoming HTTP (the server span, named by
 * Fastify's route through @fastify/otel, with a span for the handler; health probes and metric
 * scrapes are not traced), `pg` queries and `ioredis`
 * commands made inside a span (not the background polling outside one), and Bull jobs (queued and
 * run; bull-instrumentation.ts). Outgoing HTTP is not traced, so no trace header reaches a webhook
 * receiver, an AI provider or a social platform. The SDK's standard variables apply
 * (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, OTEL_BSP_SCHEDULE_DELAY, OTEL_RESOURCE_ATTRIBUTES…).
 *
 * Called by the preload (instrument.ts) before the application's modules load: instrumentation
 * patches a module as it is required, so one loaded earlier would stay untraced.
 */
export function startTracing(env: NodeJS.ProcessEnv): NodeTracerProvider {
  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME || 'storefront-api',
    'storefront.app_role': env.APP_ROLE || 'all',
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        disableOutgoingRequestInstrumentation: true,
        // Probes and scrapes, every few seconds from the orchestrator and Prometheus: not worth a trace each.
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
      }),
      // The request and its handler (the controller method); not one span per Fastify hook.
      // The request's id (X-Request-Id, also on its log lines) on its request span.
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        requestHook: (span, request) => span.setAttribute('http.request.id', request.id),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new BullInstrumentation(),
    ],
  });
  return provider;
}
