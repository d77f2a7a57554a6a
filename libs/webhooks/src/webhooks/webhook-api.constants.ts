import type { DeliveryStatus } from '../deliveries/delivery.js';
import { STORE_EVENT_NAMES } from '../events/store-event-catalog.js';
import type { WebhookStatus } from './webhook.js';

/**
 * Every rule and value of the webhook management API in one place: the routes'
 * limits, the secret format, the test event, recovery bounds, and the OpenAPI examples.
 */

// ── Secrets ──────────────────────────────────────────────────────────────────────────────────────

/** Prefix of server-generated secrets: `whsec_<base64>` is the Standard Webhooks format. */
export const SECRET_PREFIX = 'whsec_';
/** Random bytes in a server-generated secret (base64 after the prefix). */
export const GENERATED_SECRET_BYTES = 32;
/** A secret the merchant supplies: at least this many characters… */
export const MIN_SUPPLIED_SECRET_LENGTH = 16;
/** …and at most this many. */
export const MAX_SUPPLIED_SECRET_LENGTH = 256;
/**
 * Supplied secrets are printable ASCII without spaces, so they survive copy-paste and every receiver's config format.
 */
export const SUPPLIED_SECRET_PATTERN = /^[\x21-\x7e]+$/;
/** A supplied `whsec_` secret must be `whsec_` + standard base64, because Standard Webhooks receivers decode it. */
export const WHSEC_SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// ── URLs and subscriptions ───────────────────────────────────────────────────────────────────────

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** The most event kinds one webhook lists: every kind of the catalog (duplicates are removed first). */
export const MAX_SUBSCRIBED_EVENTS = STORE_EVENT_NAMES.length;
/** An error about unknown event kinds names at most this many of them. */
export const MAX_NAMED_UNKNOWN_KINDS = 10;

/** What PATCH may set `status` to. */
export const WEBHOOK_STATUSES: readonly WebhookStatus[] = ['active', 'disabled'];

// ── Deliveries ───────────────────────────────────────────────────────────────────────────────────

/** The delivery statuses a delivery log can be filtered by. */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled', 'skipped'];

/** The event kind of `POST /webhooks/{id}/test`; sent whatever the webhook subscribes to. */
export const TEST_EVENT_KIND = 'webhook.test';
export const TEST_EVENT_MESSAGE = 'This is a test event';

/** `recover` looks back at most this far (deliveries are kept longer, but a month bounds the work). */
export const RECOVER_MAX_AGE_DAYS = 30;
export const RECOVER_MAX_AGE_MS = RECOVER_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
/** `recover` redelivers at most this many events per call, oldest first; `has_more` tells the client to call again. */
export const RECOVER_MAX_DELIVERIES = 500;

// ── Answers ──────────────────────────────────────────────────────────────────────────────────────

export const WEBHOOK_DELETED_MESSAGE = 'Webhook deleted';

// ── OpenAPI examples ─────────────────────────────────────────────────────────────────────────────

export const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1R3PqZ8Q2dk=';
