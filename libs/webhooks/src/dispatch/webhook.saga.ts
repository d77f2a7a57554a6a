import { Injectable } from '@nestjs/common';
import { ofType, Saga, type IEvent } from '@nestjs/cqrs';
import { StoreEvent } from '@app/core';
import { map, type Observable } from 'rxjs';
import { DispatchWebhookCommand } from './dispatch-webhook/dispatch-webhook.command.js';

/** Every store event the outbox relay publishes becomes a dispatch to the store's webhooks. */
@Injectable()
export class WebhookSaga {
  @Saga()
  storeEvents = (events$: Observable<IEvent>): Observable<DispatchWebhookCommand> =>
    events$.pipe(
      ofType(StoreEvent),
      map((event) => new DispatchWebhookCommand(event.envelope)),
    );
}
