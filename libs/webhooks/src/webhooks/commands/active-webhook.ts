import { ApiError } from '@app/core';
import type { WebhookRepository } from '../webhook.repository.js';
import type { WebhookRow } from '../webhook.js';

/**
 * The webhook, locked for the rest of the request, when it may be sent to: 404 when it is not
 * visible, 409 CONFLICT when it is disabled (sending to it would be cancelled at once).
 */
export async function lockActiveWebhook(webhooks: WebhookRepository, webhookId: string): Promise<WebhookRow> {
  const webhook = await webhooks.findForUpdate(webhookId);
  if (!webhook) throw ApiError.notFound('Webhook');
  if (webhook.status !== 'active') {
    throw ApiError.conflict('Webhook is disabled: re-enable it with PATCH {"status": "active"} first', {
      status: webhook.status,
      disabled_reason: webhook.disabled_reason,
    });
  }
  return webhook;
}
