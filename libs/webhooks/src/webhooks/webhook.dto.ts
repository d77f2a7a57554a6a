import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { PageQueryDto } from '@app/core';
import type { DeliveryStatus } from '../deliveries/delivery.js';
import {
  DELIVERY_STATUSES,
  MAX_NAMED_UNKNOWN_KINDS,
  MAX_SUBSCRIBED_EVENTS,
  MAX_SUPPLIED_SECRET_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  MIN_SUPPLIED_SECRET_LENGTH,
  RECOVER_MAX_AGE_DAYS,
  SUPPLIED_SECRET_PATTERN,
  SECRET_PREFIX,
  GENERATED_SECRET_BYTES,
  WEBHOOK_STATUSES,
  WHSEC_SECRET_PATTERN,
} from './webhook-api.constants.js';
import { STORE_EVENT_NAMES, isStoreEventName } from '../events/store-event-catalog.js';
import { WEBHOOK_EXAMPLE, type WebhookStatus } from './webhook.js';

const KINDS: readonly string[] = STORE_EVENT_NAMES;

/** Repeated kinds count once; the order of first mention is kept. */
const uniqueStrings = ({ value }: { value: unknown }) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? [...new Set(value)] : value;

/** Every item is a store event of the catalog; the message names the unknown ones. */
function IsStoreEventKinds(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isStoreEventKinds',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: ({ value }: ValidationArguments) => {
          const unknown = (Array.isArray(value) ? value : []).filter((item) => !isStoreEventName(item));
          const named = unknown.slice(0, MAX_NAMED_UNKNOWN_KINDS).map((item) => JSON.stringify(item));
          const more = unknown.length > named.length ? ` and ${unknown.length - named.length} more` : '';
          return `events has unknown event kinds: ${named.join(', ')}${more}; known kinds are ${KINDS.join(', ')}`;
        },
      },
      validator: { validate: (value: unknown) => Array.isArray(value) && value.every(isStoreEventName) },
    });
}

/**
 * A `whsec_` secret continues in standard base64 (Standard Webhooks receivers decode it); other secrets are free-form.
 */
function IsWhsecWellFormed(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWhsecWellFormed',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `a secret starting with ${SECRET_PREFIX} must continue in standard base64` },
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || !value.startsWith(SECRET_PREFIX) || WHSEC_SECRET_PATTERN.test(value),
      },
    });
}

/**
 * Present means not null: PATCH fields may be left out but not cleared (`IsOptional` would let null
 * through as "absent", silently changing nothing).
 */
const Given = () => ValidateIf((_: object, value: unknown) => value !== undefined);

const URL_DESCRIPTION =
  'Where deliveries are POSTed: an absolute `https` URL (plain ' +
  '`http` only on servers with `WEBHOOK_ALLOW_HTTP=true`), ' +
  `at most ${MAX_WEBHOOK_URL_LENGTH} characters, no credentials ` +
  `in it. Its host must not resolve to a loopback, private, ` +
  'link-local, CGNAT, multicast, reserved or cloud-metadata address (unless `WEBHOOK_ALLOW_PRIVATE_URLS=true`); ' +
  'the address is checked again at every delivery. Stored in normalised form (e.g. the host in lower case).';
const EVENTS_DESCRIPTION =
  `Store event kinds to receive: 1 to ${MAX_SUBSCRIBED_EVENTS} of ${KINDS.join(', ')}. Repeats count once. ` +
  'What each delivers is the schema named after it in the components (`order.paid` → `OrderPaidEvent`).';
const SECRET_DESCRIPTION =
  `Signing secret, ${MIN_SUPPLIED_SECRET_LENGTH} ` +
  `to ${MAX_SUPPLIED_SECRET_LENGTH} printable ASCII characters without spaces; ` +
  `one starting with \`${SECRET_PREFIX}\` must continue in standard ` +
  `base64 (the Standard Webhooks format). Never answered back.`;

const UrlRules = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(MAX_WEBHOOK_URL_LENGTH));

const EventsRules = () =>
  applyDecorators(
    Transform(uniqueStrings),
    IsArray(),
    ArrayMinSize(1, { message: 'events must list at least one event kind' }),
    ArrayMaxSize(MAX_SUBSCRIBED_EVENTS),
    IsString({ each: true }),
    IsStoreEventKinds(),
  );

const SecretRules = () =>
  applyDecorators(
    IsString(),
    MinLength(MIN_SUPPLIED_SECRET_LENGTH),
    MaxLength(MAX_SUPPLIED_SECRET_LENGTH),
    Matches(SUPPLIED_SECRET_PATTERN, { message: 'secret must be printable ASCII characters without spaces' }),
    IsWhsecWellFormed(),
  );

export class RegisterWebhookDto {
  @ApiProperty({ description: 'The store whose events are sent', format: 'uuid', example: WEBHOOK_EXAMPLE.store_id })
  @IsUUID()
  store_id: string;

  @ApiProperty({ description: URL_DESCRIPTION, example: WEBHOOK_EXAMPLE.url, maxLength: MAX_WEBHOOK_URL_LENGTH })
  @UrlRules()
  url: string;

  @ApiProperty({
    description: EVENTS_DESCRIPTION,
    example: WEBHOOK_EXAMPLE.events,
    enum: STORE_EVENT_NAMES,
    isArray: true,
  })
  @EventsRules()
  events: string[];

  @ApiPropertyOptional({
    description:
      `${SECRET_DESCRIPTION} Leave it out and the server generates one ` +
      `(\`${SECRET_PREFIX}\` + ${GENERATED_SECRET_BYTES} random bytes ` +
      'in base64) and answers it once, in `secret` beside the webhook.',
    example: 'my-shared-secret-1234',
    minLength: MIN_SUPPLIED_SECRET_LENGTH,
    maxLength: MAX_SUPPLIED_SECRET_LENGTH,
  })
  @Given()
  @SecretRules()
  secret?: string;
}

/** PATCH: any of url, events, secret, status; a field given must not be null. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({
    description: `${URL_DESCRIPTION} Checked again when changed.`,
    example: 'https://merchant.example/hooks/v2',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
  })
  @Given()
  @UrlRules()
  url?: string;

  @ApiPropertyOptional({
    description: `${EVENTS_DESCRIPTION} Replaces the list.`,
    example: ['order.created', 'order.paid', 'order.refunded'],
    enum: STORE_EVENT_NAMES,
    isArray: true,
  })
  @Given()
  @EventsRules()
  events?: string[];

  @ApiPropertyOptional({
    description:
      `${SECRET_DESCRIPTION} Replaces the secret at once, with no ` +
      `overlap: from the next attempt on only this secret signs ` +
      '(a rotated-out secret still in its 24 h overlap stops signing too). Use `rotate-secret` for an overlap.',
    example: 'my-new-shared-secret-5678',
    minLength: MIN_SUPPLIED_SECRET_LENGTH,
    maxLength: MAX_SUPPLIED_SECRET_LENGTH,
  })
  @Given()
  @SecretRules()
  secret?: string;

  @ApiPropertyOptional({
    enum: WEBHOOK_STATUSES,
    description:
      '`disabled` stops deliveries (pending ones are cancelled; events from then on are recorded as `skipped` ' +
      'deliveries, nothing sent; `disabled_reason` becomes "Disabled by the merchant"); `active` re-enables, clears ' +
      "`disabled_reason` and resets the webhook's circuit breaker and concurrency gate: the breaker is closed, so " +
      'events from then on are delivered at once (requests still in flight keep counting toward the concurrency ' +
      'limit), and `recover` re-sends what failed, was cancelled or was skipped meanwhile.',
    example: 'active',
  })
  @Given()
  @IsIn(WEBHOOK_STATUSES)
  status?: WebhookStatus;
}

export class ListWebhooksParams extends PageQueryDto {
  @ApiProperty({ description: 'The store whose webhooks to list', format: 'uuid', example: WEBHOOK_EXAMPLE.store_id })
  @IsUUID()
  store_id: string;
}

export class ListDeliveriesParams extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state', example: 'failed' })
  @Given()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class RecoverDeliveriesDto {
  @ApiProperty({
    description:
      `ISO 8601 timestamp with a time zone, not in the future and ` +
      `at most ${RECOVER_MAX_AGE_DAYS} days ago: every event whose ` +
      'latest delivery to this webhook since then failed, was cancelled or was skipped is delivered again.',
    example: '2026-11-21T00:00:00Z',
  })
  @IsString()
  @IsISO8601(
    { strict: true, strictSeparator: true },
    { message: 'since must be an ISO 8601 timestamp such as 2026-11-21T00:00:00Z' },
  )
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: 'since must carry a time zone (Z or ±hh:mm)' })
  // ISO 8601 forms that JavaScript's Date cannot read (week dates, expanded years) are refused too.
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i, {
    message: 'since must be a timestamp such as 2026-11-21T00:00:00Z',
  })
  since: string;
}
