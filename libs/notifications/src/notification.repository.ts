import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { acknowledgeCte, type Cursor, queryRows, SystemDb, TenantDb, isoTimestamp } from '@app/core';

export interface NotificationRow {
  id: string;
  store_id: string;
  kind: string;
  message: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** A merchant notification as answered (`NotificationView` in the OpenAPI document). */
export class NotificationView {
  @ApiProperty({ format: 'uuid', example: '9b2d4f6a-8c0e-4a1b-9d3f-5e7a9c1b3d5f' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({
    description: 'What happened: `webhook.disabled`, `social_post_failed` or `inventory.out_of_stock`',
    example: 'webhook.disabled',
  })
  kind!: string;
  @ApiProperty({
    description: 'The notice in words',
    example:
      'Webhook https://merchant.example/hooks/storefront was disabled: ' +
      '5 delivery attempts failed; the last: Receiver answered 500',
  })
  message!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The facts of the notice, by kind (see the operation)',
    example: {
      webhook_id: '5d4c3b2a-1908-4f7e-8d6c-5b4a39281706',
      url: 'https://merchant.example/hooks/storefront',
      reason: '5 delivery attempts failed; the last: Receiver answered 500',
      delivery_id: '0b6e1c7a-9a55-4f4e-8f0e-3c2d1b0a9f8e',
    },
  })
  data!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T11:36:00.000Z' })
  created_at!: string;
}

export const toNotificationView = (row: NotificationRow): NotificationView => ({
  id: row.id,
  store_id: row.store_id,
  kind: row.kind,
  message: row.message,
  data: row.data,
  created_at: isoTimestamp(row.created_at),
});

@Injectable()
export class NotificationRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
  ) {}

  async add(storeId: string, kind: string, message: string, data: object): Promise<void> {
    await queryRows(
      this.system.tx,
      'INSERT INTO merchant_notifications (store_id, kind, message, data) VALUES ($1, $2, $3, $4)',
      [storeId, kind, message, JSON.stringify(data)],
    );
  }

  /**
   * Acknowledges `publications` for `subscriber` and, for the events of `soldOut` acknowledged now (not before),
   * writes an `inventory.out_of_stock` notification naming the product (as it is now; "A product" once
   * deleted), in one statement. Returns how many it wrote.
   */
  async addOutOfStock(
    subscriber: string,
    publications: readonly string[],
    soldOut: { event_id: string; store_id: string; product_id: string; reason: string | null }[],
  ): Promise<number> {
    const rows = await queryRows(
      this.system.tx,
      `WITH ${acknowledgeCte('$1', '$2')}
       INSERT INTO merchant_notifications (store_id, kind, message, data)
       SELECT s.store_id, 'inventory.out_of_stock',
              CASE WHEN p.name IS NULL THEN 'A product is out of stock' ELSE format('"%s" is out of stock', p.name) END
                || CASE WHEN s.reason IS NULL THEN '' ELSE format(' (%s)', s.reason) END,
              jsonb_build_object('product_id', s.product_id, 'product_name', p.name, 'reason', s.reason, 'event_id',
                s.event_id)
         FROM json_to_recordset($3::json) AS s(event_id uuid, store_id uuid, product_id uuid, reason text)
         JOIN acked ON acked.event_id = s.event_id
         LEFT JOIN products p ON p.id = s.product_id AND p.store_id = s.store_id
       RETURNING 1`,
      [subscriber, publications, JSON.stringify(soldOut)],
    );
    return rows.length;
  }

  async pageOfStore(storeId: string, limit: number, after: Cursor | null): Promise<NotificationRow[]> {
    return queryRows<NotificationRow>(
      this.db.tx,
      `SELECT * FROM merchant_notifications WHERE store_id = $1
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [storeId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }
}
