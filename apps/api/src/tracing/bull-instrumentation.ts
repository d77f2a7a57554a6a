import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  InstrumentationBase,
  InstrumentationNodeModuleDefinition,
  isWrapped,
  type InstrumentationConfig,
} from '@opentelemetry/instrumentation';
import type { Job, JobOptions, Queue } from 'bull';

/** The key of a job's data that carries the W3C trace context of the code that queued it. */
export const JOB_TRACE_KEY = '_trace';

type Carrier = Record<string, string>;
type JobHandler = (job: Job, done?: (error?: Error | null, result?: unknown) => void) => unknown;
type BulkJob = { name?: string; data: unknown; opts?: JobOptions };

function withCarrier(data: unknown, carrier: Carrier): unknown {
  // Only plain object data can carry it (ours always is); anything else is queued as it came.
  if (data === null || typeof data !== 'object' || Array.isArray(data) || Object.keys(carrier).length === 0)
    return data;
  return { ...(data as Record<string, unknown>), [JOB_TRACE_KEY]: carrier };
}

function carrierOf(job: Job): Carrier {
  const carrier = (job.data as Record<string, unknown> | null | undefined)?.[JOB_TRACE_KEY];
  return carrier && typeof carrier === 'object' ? (carrier as Carrier) : {};
}

function ended<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (error: Error) => {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message });
      span.end();
      throw error;
    },
  );
}

/**
 * Traces Bull (v4) jobs: queueing one (`add`, `addBulk`) is a PRODUCER span `<queue> send` whose
 * context travels in the job's data (`_trace`, W3C traceparent); running one (the handler given to
 * `process`) is a CONSUMER span `<queue> process`, a child of that producer span: a job queued inside
 * a request is part of the request's trace, and its database and Redis spans are children of the job's.
 * Loaded only by the tracing preload, so untraced processes queue their jobs exactly as before.
 */
export class BullInstrumentation extends InstrumentationBase {
  constructor(config: InstrumentationConfig = {}) {
    super('storefront-bull-instrumentation', '1.0.0', config);
  }

  protected init() {
    return new InstrumentationNodeModuleDefinition(
      'bull',
      ['>=4 <5'],
      (moduleExports: { prototype: Queue; default?: { prototype: Queue } }) => {
        // Bull is loaded as an ES module import (@nestjs/bull) and may also be required: patched once.
        const prototype = (moduleExports.default ?? moduleExports).prototype;
        if (isWrapped(prototype.add)) return moduleExports;
        this._wrap(prototype, 'add', (original) => this.wrapAdd(original as (...args: unknown[]) => Promise<Job>));
        this._wrap(prototype, 'addBulk', (original) => this.wrapAddBulk(original));
        this._wrap(
          prototype,
          'setHandler' as keyof Queue,
          (original) => this.wrapSetHandler(original as never) as never,
        );
        return moduleExports;
      },
      (moduleExports: { prototype: Queue; default?: { prototype: Queue } }) => {
        const prototype = (moduleExports.default ?? moduleExports).prototype;
        if (!isWrapped(prototype.add)) return;
        this._unwrap(prototype, 'add');
        this._unwrap(prototype, 'addBulk');
        this._unwrap(prototype, 'setHandler' as keyof Queue);
      },
    );
  }

  private producerSpan(queue: Queue, count: number): { span: Span; ctx: Context; carrier: Carrier } {
    const span = this.tracer.startSpan(`${queue.name} send`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'bull',
        'messaging.operation.type': 'send',
        'messaging.destination.name': queue.name,
        ...(count > 1 ? { 'messaging.batch.message_count': count } : {}),
      },
    });
    const ctx = trace.setSpan(context.active(), span);
    const carrier: Carrier = {};
    propagation.inject(ctx, carrier);
    return { span, ctx, carrier };
  }

  private wrapAdd(original: (...args: unknown[]) => Promise<Job>) {
    const producerSpan = (queue: Queue) => this.producerSpan(queue, 1);
    return function add(this: Queue, ...args: unknown[]): Promise<Job> {
      const named = typeof args[0] === 'string';
      const dataIndex = named ? 1 : 0;
      const { span, ctx, carrier } = producerSpan(this);
      const traced = [...args];
      traced[dataIndex] = withCarrier(args[dataIndex], carrier);
      return ended(
        span,
        context
          .with(ctx, () => original.apply(this, traced))
          .then((job) => {
            span.setAttribute('messaging.message.id', String(job.id));
            return job;
          }),
      );
    };
  }

  private wrapAddBulk(original: Queue['addBulk']) {
    const producerSpan = (queue: Queue, count: number) => this.producerSpan(queue, count);
    return function addBulk(this: Queue, jobs: BulkJob[]) {
      const { span, ctx, carrier } = producerSpan(this, jobs.length);
      const traced = jobs.map((job) => ({ ...job, data: withCarrier(job.data, carrier) }));
      return ended(
        span,
        context.with(ctx, () => original.call(this, traced as Parameters<Queue['addBulk']>[0])),
      );
    } as Queue['addBulk'];
  }

  private wrapSetHandler(original: (name: string, handler: JobHandler | string) => void) {
    const startSpan: Tracer['startSpan'] = (...args) => this.tracer.startSpan(...args);
    return function setHandler(this: Queue, name: string, handler: JobHandler | string): void {
      // A sandboxed processor (a file) runs in another process: not traced here.
      if (typeof handler !== 'function') return original.call(this, name, handler);
      const queueName = this.name;
      const run = (job: Job, invoke: () => unknown) => {
        const parent = propagation.extract(ROOT_CONTEXT, carrierOf(job));
        const span = startSpan(
          `${queueName} process`,
          {
            kind: SpanKind.CONSUMER,
            attributes: {
              'messaging.system': 'bull',
              'messaging.operation.type': 'process',
              'messaging.destination.name': queueName,
              'messaging.message.id': String(job.id),
              'messaging.bull.attempt': job.attemptsMade + 1,
            },
          },
          parent,
        );
        return ended(
          span,
          context.with(trace.setSpan(parent, span), () => Promise.resolve().then(invoke)),
        );
      };
      // Bull tells a callback-style handler (job, done) from a promise-style one by its arity: keep it.
      const traced =
        handler.length > 1
          ? function (this: unknown, job: Job, done: (error?: Error | null, result?: unknown) => void) {
              run(
                job,
                () =>
                  new Promise((resolve, reject) =>
                    handler.call(this, job, (error, result) => (error ? reject(error) : resolve(result))),
                  ),
              ).then(
                (result) => done(null, result),
                (error: Error) => done(error),
              );
            }
          : function (this: unknown, job: Job) {
              return run(job, () => handler.call(this, job));
            };
      return original.call(this, name, traced as JobHandler);
    };
  }
}
