import { GetWebhookHandler } from './get-webhook/get-webhook.handler.js';
import { ListDeliveriesHandler } from './list-deliveries/list-deliveries.handler.js';
import { ListWebhooksHandler } from './list-webhooks/list-webhooks.handler.js';

export const WebhookQueryHandlers = [ListWebhooksHandler, GetWebhookHandler, ListDeliveriesHandler];
