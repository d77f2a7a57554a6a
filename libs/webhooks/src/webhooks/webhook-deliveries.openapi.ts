import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiPage } from '@app/core';
import { DeliveryView } from '../deliveries/delivery.js';
import {
  RECOVER_MAX_AGE_DAYS,
  RECOVER_MAX_DELIVERIES,
  TEST_EVENT_KIND,
  TEST_EVENT_MESSAGE,
} from './webhook-api.constants.js';

const QUEUED = 'Its first attempt is queued once the request has committed, then the usual retry schedule applies.';

/** The 409 of the routes that send: a disabled webhook sends nothing. */
const ApiWebhookDisabled = () =>
  ApiErrorResponse(409, 'The webhook is disabled: re-enable it first', {
    code: 'CONFLICT',
    message: 'Webhook is disabled: re-enable it with PATCH {"status": "active"} first',
    details: { status: 'disabled', disabled_reason: '5 delivery attempts failed; the last: Receiver answered 500' },
  });

/** GET /functions/v1/webhooks/{webhook_id}/deliveries */
export const ApiListDeliveries = () =>
  applyDecorators(
    ApiOperation({
      summary: "A webhook's deliveries with their attempts, newest first",
      description:
        'One delivery per event (plus test events and redeliveries), filtered by `status` (`pending`, `succeeded`, ' +
        '`failed`, `cancelled`, `skipped`: an event that came while the webhook was disabled, never sent). ' +
        'Each attempt records when it started, its duration, the status code, the error, a short excerpt of the ' +
        "receiver's answer and when the next attempt is due.",
    }),
    ApiPage(DeliveryView),
  );

/** POST /functions/v1/webhooks/{webhook_id}/test */
export const ApiSendTestDelivery = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Send a test event',
      description:
        `Creates a delivery of a \`${TEST_EVENT_KIND}\` event, ` +
        `whatever the webhook subscribes to, signed like any other: ` +
        `\`{id, event: "${TEST_EVENT_KIND}", created_at, store_id, data: ` +
        `{webhook_id, message: "${TEST_EVENT_MESSAGE}"}}\`. ${QUEUED}`,
    }),
    ApiEnvelope(201, { delivery: DeliveryView }),
    ApiWebhookDisabled(),
  );

/** POST /functions/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver */
export const ApiRedeliver = () =>
  applyDecorators(
    ApiParam({ name: 'delivery_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Deliver an event again',
      description:
        'Creates a new delivery of the same event (same envelope ' +
        '`id` and body, so receivers can de-duplicate), with its own ' +
        `attempts and \`redelivery_of\` the delivery given, whatever ` +
        `that one's state. ${QUEUED} A delivery of another webhook ` +
        'answers 404.',
    }),
    ApiEnvelope(201, { delivery: DeliveryView }),
    ApiWebhookDisabled(),
  );

/** POST /functions/v1/webhooks/{webhook_id}/recover */
export const ApiRecoverDeliveries = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Re-send what failed or was skipped since a time',
      description:
        `Redelivers every event whose latest delivery since \`since\` ` +
        `(at most ${RECOVER_MAX_AGE_DAYS} days ago, not in the ` +
        'future) failed, was cancelled or was skipped (it came while the webhook was disabled), e.g. after ' +
        're-enabling a disabled webhook: same envelope `id` and body, signed with the current secret. A disabled ' +
        'webhook answers 409 (re-enable it first, as nothing can be sent to it). Events already redelivered are ' +
        `not sent again, so repeating the call is safe. At most ${RECOVER_MAX_DELIVERIES} events per call, ` +
        'oldest first; `has_more` ' +
        `says more remain (call again with the same \`since\`). Answers 200 even when nothing qualified. ${QUEUED}`,
    }),
    ApiEnvelope(200, {
      redelivered: { type: 'integer', description: 'How many events were delivered again', example: 1 },
      deliveries: [DeliveryView],
      has_more: {
        type: 'boolean',
        description: `More than ${RECOVER_MAX_DELIVERIES} qualified: call again with the same \`since\``,
        example: false,
      },
    }),
    ApiWebhookDisabled(),
  );
