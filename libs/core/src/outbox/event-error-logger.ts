import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UnhandledExceptionBus } from '@nestjs/cqrs';
import type { Subscription } from 'rxjs';
import { StoreEvent } from './store-event.js';

/** Errors thrown by event handlers and sagas never reach an exception filter: they are logged here, with the event id. */
@Injectable()
export class EventErrorLogger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Events');
  private subscription?: Subscription;

  constructor(private readonly unhandled: UnhandledExceptionBus) {}

  onModuleInit(): void {
    this.subscription = this.unhandled.subscribe(({ exception, cause }) => {
      const event =
        cause instanceof StoreEvent ? { id: cause.envelope.id, event: cause.envelope.event } : { type: cause?.constructor?.name };
      const error = exception instanceof Error ? { message: exception.message, stack: exception.stack } : { message: String(exception) };
      this.logger.error({ err: error, cause: event }, 'event handler failed');
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
