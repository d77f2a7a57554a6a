import { ApiProperty } from '@nestjs/swagger';
import { STORE_EVENT_NAMES } from '../events/store-event-catalog.js';
import { isoTimestamp } from '@app/core';

export type WebhookStatus = 'active' | 'disabled';

export interface WebhookRow {
  id: string;
  store_id: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  disabled_reason: string | null;
  secret_sealed: string;
  secret_hint: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The webhook as answered: never the secret, only a hint of it (`WebhookView` in the OpenAPI document). */
export class WebhookView {
  @ApiProperty({ format: 'uuid', example: '5d4c3b2a-1908-4f7e-8d6c-5b4a39281706' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({
    description: 'Where deliveries are POSTed, normalised',
    example: 'https://merchant.example/hooks/storefront',
  })
  url!: string;
  @ApiProperty({
    enum: STORE_EVENT_NAMES,
    isArray: true,
    description: 'The store event kinds it receives',
    example: ['order.created', 'order.paid'],
  })
  events!: string[];
  @ApiProperty({
    enum: ['active', 'disabled'],
    description: '`disabled` by the merchant, or after a delivery failed its last attempt or got `410 Gone`',
    example: 'active',
  })
  status!: WebhookStatus;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why it was disabled; null while active', example: null })
  disabled_reason!: string | null;
  @ApiProperty({ description: "The secret's kind and last four characters", example: 'whsec_…Q2dk' })
  secret_hint!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updated_at!: string;
}

export function toWebhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    store_id: row.store_id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    secret_hint: row.secret_hint,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** What a merchant sees of a secret: its kind and last four characters. */
export function secretHint(secret: string): string {
  return `${secret.startsWith('whsec_') ? 'whsec_' : ''}…${secret.slice(-4)}`;
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Deliveries that fail this many attempts disable their webhook (fewer, when WEBHOOK_RETRY_DELAYS_MS lists fewer). */
export const MAX_DELIVERY_ATTEMPTS = 5;

export const WEBHOOK_EXAMPLE: WebhookView = {
  id: '5d4c3b2a-1908-4f7e-8d6c-5b4a39281706',
  store_id: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  url: 'https://merchant.example/hooks/storefront',
  events: ['order.created', 'order.paid'],
  status: 'active',
  disabled_reason: null,
  secret_hint: 'whsec_…Q2dk',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
