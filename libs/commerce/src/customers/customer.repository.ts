import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { queryRows } from '@app/core';
import type { CustomerRow } from './customer.js';

@Injectable()
export class CustomerRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Inserts a customer; null when the store already has a customer with that e-mail. */
  async insert(
    storeId: string,
    fields: { name: string; email: string; phone?: string | null; userId?: string | null },
  ): Promise<CustomerRow | null> {
    const rows = await queryRows<CustomerRow>(
      this.txHost.tx,
      `INSERT INTO customers (store_id, name, email, phone, user_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (store_id, lower(email)) DO NOTHING RETURNING *`,
      [storeId, fields.name, fields.email, fields.phone ?? null, fields.userId ?? null],
    );
    return rows[0] ?? null;
  }

  /** Gives an unclaimed customer record with this e-mail to a user signing up; null when there is none. */
  async claim(storeId: string, email: string, userId: string): Promise<CustomerRow | null> {
    const rows = await queryRows<CustomerRow>(
      this.txHost.tx,
      `UPDATE customers SET user_id = $3, updated_at = now()
        WHERE store_id = $1 AND lower(email) = lower($2) AND user_id IS NULL RETURNING *`,
      [storeId, email, userId],
    );
    return rows[0] ?? null;
  }
}
