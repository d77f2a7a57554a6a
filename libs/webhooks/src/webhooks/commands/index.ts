import { DeleteWebhookHandler } from './delete-webhook/delete-webhook.handler.js';
import { RecoverDeliveriesHandler } from './recover-deliveries/recover-deliveries.handler.js';
import { RedeliverDeliveryHandler } from './redeliver-delivery/redeliver-delivery.handler.js';
import { RegisterWebhookHandler } from './register-webhook/register-webhook.handler.js';
import { RotateWebhookSecretHandler } from './rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { SendTestEventHandler } from './send-test-event/send-test-event.handler.js';
import { UpdateWebhookHandler } from './update-webhook/update-webhook.handler.js';

export const WebhookCommandHandlers = [
  RegisterWebhookHandler,
  UpdateWebhookHandler,
  DeleteWebhookHandler,
  RotateWebhookSecretHandler,
  SendTestEventHandler,
  RedeliverDeliveryHandler,
  RecoverDeliveriesHandler,
];
