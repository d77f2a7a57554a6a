import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';

/**
 * `skipped`: the event came while the webhook was disabled; nothing was sent (`recover` sends it once
 * the webhook is active again).
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  store_id: string;
  event_id: string;
  event: string;
  body: string;
  redelivery_of: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  /** When the delivery was parked in the gate, while it waits there (not part of the API's view). */
  parked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: Date | null;
}

const AT = '2026-11-22T10:00:00.000Z';
const NEXT_AT = '2026-11-22T10:01:00.412Z';

/** One attempt of a delivery (`AttemptView` in the OpenAPI document). */
export class AttemptView {
  @ApiProperty({ type: 'integer', minimum: 1, description: '1 for the first attempt', example: 1 })
  attempt!: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.210Z' })
  started_at!: string;
  @ApiProperty({ type: 'integer', description: 'How long the request took', example: 202 })
  duration_ms!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The receiver's HTTP status; null when none came back",
    example: 500,
  })
  status_code!: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'What went wrong; null on success',
    example: 'Receiver answered 500',
  })
  error!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The start of the receiver's answer",
    example: 'Internal Server Error',
  })
  response_excerpt!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next attempt is due after this one; null when none follows',
    example: NEXT_AT,
  })
  next_attempt_at!: string | null;
}

/** One delivery of an event to a webhook, with its attempts (`DeliveryView` in the OpenAPI document). */
export class DeliveryView {
  @ApiProperty({ format: 'uuid', example: '0b6e1c7a-9a55-4f4e-8f0e-3c2d1b0a9f8e' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '5d4c3b2a-1908-4f7e-8d6c-5b4a39281706' })
  webhook_id!: string;
  @ApiProperty({
    format: 'uuid',
    description: "The envelope's `id`: the same on a redelivery",
    example: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  })
  event_id!: string;
  @ApiProperty({
    description: 'The event kind: a store event of the catalog, or `webhook.test`',
    example: 'order.paid',
  })
  event!: string;
  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed', 'cancelled', 'skipped'] satisfies DeliveryStatus[],
    description:
      '`cancelled`: stopped when the webhook was disabled; `skipped`: the event came while the webhook was ' +
      'disabled, nothing was sent (`recover` sends it after re-enabling)',
    example: 'pending',
  })
  status!: DeliveryStatus;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far', example: 1 })
  attempt_count!: number;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next attempt is due; null once the delivery is settled',
    example: NEXT_AT,
  })
  next_attempt_at!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The status code of the latest attempt; null before one answered',
    example: 500,
  })
  last_status_code!: number | null;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The delivery this one redelivers; null for a first delivery',
    example: null,
  })
  redelivery_of!: string | null;
  @ApiProperty({ format: 'date-time', example: AT })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.412Z' })
  updated_at!: string;
  @ApiProperty({ type: [AttemptView], description: 'Oldest first' })
  attempts!: AttemptView[];
}

export function toDeliveryView(row: DeliveryRow, attempts: AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event: row.event,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at ? isoTimestamp(row.next_attempt_at) : null,
    last_status_code: row.last_status_code,
    redelivery_of: row.redelivery_of,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: isoTimestamp(attempt.started_at),
      duration_ms: attempt.duration_ms,
      status_code: attempt.status_code,
      error: attempt.error,
      response_excerpt: attempt.response_excerpt,
      next_attempt_at: attempt.next_attempt_at ? isoTimestamp(attempt.next_attempt_at) : null,
    })),
  };
}
