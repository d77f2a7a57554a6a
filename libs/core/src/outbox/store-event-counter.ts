import { EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import { MetricsService } from '../observability/metrics.service.js';
import { StoreEvent } from './store-event.js';

/**
 * Counts store events per kind on the EventBus (`store_events_published_total{event}`), first
 * publications only. Best effort, and on purpose not an acknowledging subscriber: a process killed
 * after its relay published a batch has counted it in memory that died with it, and a counter kept
 * exactly would cost a database write per event for a figure Prometheus reads as a rate. Each relaying
 * process counts what it published; /metrics shows them where the process serves HTTP (APP_ROLE=all).
 */
@EventsHandler(StoreEvent)
export class StoreEventCounter implements IEventHandler<StoreEvent> {
  constructor(private readonly metrics: MetricsService) {}

  handle(event: StoreEvent): void {
    if (event.republishedFor === null) this.metrics.storeEvents.inc({ event: event.envelope.event });
  }
}
