import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { NotificationsModule } from '@app/notifications';
import { DeliveryQueue, DELIVERY_QUEUE } from './deliveries/delivery-queue.js';
import { DeliveryAttempt } from './deliveries/delivery-attempt.js';
import { DeliveryRetention } from './deliveries/delivery-retention.js';
import { DeliveryRepository } from './deliveries/delivery.repository.js';
import { DeliveryWorker } from './deliveries/delivery.worker.js';
import { EndpointGate } from './deliveries/endpoint-gate.js';
import { LostDeliverySweep } from './deliveries/lost-delivery-sweep.js';
import { LostDeliveryRepository } from './deliveries/lost-delivery.repository.js';
import { ListStoreEventsHandler } from './events/list-store-events/list-store-events.handler.js';
import { StoreEventsController } from './events/store-events.controller.js';
import { DispatchWebhookHandler } from './dispatch/dispatch-webhook/dispatch-webhook.handler.js';
import { WebhookDispatchSaga } from './dispatch/webhook-dispatch.saga.js';
import { WebhookCommandHandlers } from './webhooks/commands/index.js';
import { DeliveryStarter } from './webhooks/delivery-starter.js';
import { WebhookQueryHandlers } from './webhooks/queries/index.js';
import { WebhookDeliveriesController } from './webhooks/webhook-deliveries.controller.js';
import { WebhookSecrets } from './webhooks/webhook-secrets.js';
import { WebhookUrlChecker } from './webhooks/webhook-url.checker.js';
import { WebhookRepository } from './webhooks/webhook.repository.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';

/**
 * Webhook registration, the store event catalog, the dispatch saga (store events → deliveries), signed
 * deliveries with retries, and disabling (with a merchant notification, through @app/notifications).
 */
@Module({
  imports: [StoreAccessModule, NotificationsModule, BullModule.registerQueue({ name: DELIVERY_QUEUE })],
  controllers: [WebhooksController, WebhookDeliveriesController, StoreEventsController],
  providers: [
    WebhookRepository,
    DeliveryRepository,
    DeliveryQueue,
    EndpointGate,
    DeliveryAttempt,
    DeliveryWorker,
    LostDeliverySweep,
    LostDeliveryRepository,
    DeliveryRetention,
    WebhookDispatchSaga,
    DispatchWebhookHandler,
    WebhookSecrets,
    WebhookUrlChecker,
    DeliveryStarter,
    ...WebhookCommandHandlers,
    ...WebhookQueryHandlers,
    ListStoreEventsHandler,
  ],
  exports: [DeliveryQueue, DeliveryWorker, DeliveryRetention],
})
export class WebhooksModule {}
