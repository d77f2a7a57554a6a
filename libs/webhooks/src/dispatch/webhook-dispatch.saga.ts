import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Saga, type ICommand, type IEvent } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { StoreEventSubscribers, storeEventsFor, type AcknowledgingSubscriber } from '@app/core';
import { DispatchWebhookCommand } from './dispatch-webhook/dispatch-webhook.command.js';

/** The webhook dispatch as an acknowledging subscriber: every store event, since any may have subscribed webhooks. */
export const WEBHOOK_DISPATCH: AcknowledgingSubscriber = { name: 'webhooks' };

/**
 * The webhooks context's saga: each batch of store events the relay publishes becomes one
 * `DispatchWebhookCommand`. @nestjs/cqrs runs a saga's command without waiting for it, so the
 * guarantee is the acknowledgement: the handler records it in the statement that writes the
 * deliveries, and the relay publishes an event again (to this subscriber alone) while it is missing.
 */
@Injectable()
export class WebhookDispatchSaga implements OnModuleInit {
  constructor(private readonly subscribers: StoreEventSubscribers) {}

  onModuleInit(): void {
    this.subscribers.register(WEBHOOK_DISPATCH);
  }

  @Saga()
  dispatch = (events$: Observable<IEvent>): Observable<ICommand> =>
    events$.pipe(
      storeEventsFor(WEBHOOK_DISPATCH),
      map(({ envelopes, publications }) => new DispatchWebhookCommand(envelopes, publications)),
    );
}
