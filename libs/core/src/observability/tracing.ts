import { trace } from '@opentelemetry/api';

/**
 * The active span's ids, on every line logged inside one (a request, a job) while tracing is on
 * (loggerParams), to go from a log line to its trace and back.
 */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * Exports the spans still waiting in the batch before the process exits (graceful shutdown), within
 * `withinMs`. Without tracing the global provider is a no-op one: nothing to do.
 */
export async function flushTraces(withinMs: number): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
  const flush = provider.getDelegate?.().forceFlush?.();
  if (!flush) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    flush.catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs))),
  ]);
  clearTimeout(timer);
}
