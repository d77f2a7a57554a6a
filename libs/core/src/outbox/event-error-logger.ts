import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UnhandledExceptionBus } from '@nestjs/cqrs';
import type { Subscription } from 'rxjs';
import { StoreEvent } from './store-event.js';

/**
 * Errors thrown by event handlers, sagas and the commands sagas issue never reach an exception filter:
 * they are logged here, with the event id (or, for a command of a batch of events, their ids). An
 * acknowledging subscriber's event comes back on its own (the relay publishes it again); this is what
 * tells an operator why.
 */
@Injectable()
export class EventErrorLogger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Events');
  private subscription?: Subscription;

  constructor(private readonly unhandled: UnhandledExceptionBus) {}

  onModuleInit(): void {
    this.subscription = this.unhandled.subscribe(({ exception, cause }) => {
      const envelopes = (cause as { envelopes?: unknown } | undefined)?.envelopes;
      const event =
        cause instanceof StoreEvent
          ? { id: cause.envelope.id, event: cause.envelope.event }
          : Array.isArray(envelopes)
            ? { type: cause?.constructor?.name, events: envelopes.map((envelope: { id?: unknown }) => envelope?.id) }
            : { type: cause?.constructor?.name };
      const error =
        exception instanceof Error
          ? { message: exception.message, stack: exception.stack }
          : { message: String(exception) };
      this.logger.error({ err: error, cause: event }, 'event handler failed');
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
