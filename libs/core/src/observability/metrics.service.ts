import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One Prometheus registry per app instance; other libs add their metrics to it. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookParked = new Counter({
    name: 'webhook_delivery_parked_total',
    help:
      'Delivery jobs that found their webhook busy (its slots taken) ' +
      'or its circuit open or probing, and were parked, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly webhookHandOvers = new Counter({
    name: 'webhook_slot_handovers_total',
    help:
      'Parked deliveries given a freed slot, by how they were sent: in ' +
      "the job that freed it ('job') or through a new queued job ('queue')",
    labelNames: ['via'] as const,
    registers: [this.registry],
  });

  readonly webhookCircuitOpened = new Counter({
    name: 'webhook_circuit_opened_total',
    help: 'Times a webhook circuit opened (consecutive failures, or a failed probe)',
    registers: [this.registry],
  });

  readonly storeEvents = new Counter({
    name: 'store_events_published_total',
    help:
      'Store events this process published on the event bus for the ' +
      'first time, by event (best effort: see docs/architecture.md)',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  readonly storeEventsRepublished = new Counter({
    name: 'store_events_republished_total',
    help:
      'Store events published again because an acknowledging ' +
      'subscriber had not acknowledged them in time, by subscriber',
    labelNames: ['subscriber'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }
}
