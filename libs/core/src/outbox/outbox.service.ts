import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

/** Appends domain events to the outbox in the current transaction: they exist exactly when the change commits. */
@Injectable()
export class OutboxService {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async append(storeId: string, event: string, data: object): Promise<void> {
    await this.txHost.tx.query('INSERT INTO outbox_events (store_id, event, data) VALUES ($1, $2, $3)', [
      storeId,
      event,
      JSON.stringify(data),
    ]);
  }
}
