import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { queryRows, type Cursor } from '@app/core';

export interface NotificationRow {
  id: string;
  store_id: string;
  kind: string;
  message: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface NotificationView {
  id: string;
  store_id: string;
  kind: string;
  message: string;
  data: Record<string, unknown>;
  created_at: string;
}

export const toNotificationView = (row: NotificationRow): NotificationView => ({
  id: row.id,
  store_id: row.store_id,
  kind: row.kind,
  message: row.message,
  data: row.data,
  created_at: row.created_at.toISOString(),
});

@Injectable()
export class NotificationRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async add(storeId: string, kind: string, message: string, data: object): Promise<void> {
    await queryRows(this.txHost.tx, 'INSERT INTO merchant_notifications (store_id, kind, message, data) VALUES ($1, $2, $3, $4)', [
      storeId,
      kind,
      message,
      JSON.stringify(data),
    ]);
  }

  async pageOfStore(storeId: string, limit: number, after: Cursor | null): Promise<NotificationRow[]> {
    return queryRows<NotificationRow>(
      this.txHost.tx,
      `SELECT * FROM merchant_notifications WHERE store_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [storeId, after?.createdAt ?? null, after?.id ?? null, limit + 1],
    );
  }
}
