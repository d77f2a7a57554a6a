import { Injectable } from '@nestjs/common';
import { containsPattern, type Cursor, queryRows, TenantDb } from '@app/core';
import type { CustomerRow } from './customer.js';

const UNIQUE_VIOLATION = '23505';
const EMAIL_KEY = 'customers_email_key';

/** The fields of a customer that staff (or the customer itself) may change. */
export interface CustomerFields {
  name?: string;
  email?: string;
  phone?: string | null;
}

@Injectable()
export class CustomerRepository {
  constructor(private readonly db: TenantDb) {}

  /** Inserts a customer; null when the store already has a customer with that e-mail. */
  async insert(
    storeId: string,
    fields: { name: string; email: string; phone?: string | null; userId?: string | null },
  ): Promise<CustomerRow | null> {
    const rows = await queryRows<CustomerRow>(
      this.db.tx,
      `INSERT INTO customers (store_id, name, email, phone, user_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (store_id, lower(email)) DO NOTHING RETURNING *`,
      [storeId, fields.name, fields.email, fields.phone ?? null, fields.userId ?? null],
    );
    return rows[0] ?? null;
  }

  async findVisible(id: string): Promise<CustomerRow | null> {
    return (await queryRows<CustomerRow>(this.db.tx, 'SELECT * FROM customers WHERE id = $1', [id]))[0] ?? null;
  }

  /** The customer, locked for the rest of the transaction; null when not visible. */
  async findForUpdate(id: string): Promise<CustomerRow | null> {
    return (
      (await queryRows<CustomerRow>(this.db.tx, 'SELECT * FROM customers WHERE id = $1 FOR UPDATE', [id]))[0] ?? null
    );
  }

  /**
   * A page of the store's customers, newest first, optionally matching `q` in name or e-mail. A search
   * finds its page's ids through app_search_customers (trigram indexes, which row-level security would
   * keep this query from using) and reads the rows here, under the request's policies.
   */
  async pageOfStore(
    storeId: string,
    q: string | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<CustomerRow[]> {
    const cursor = [after?.createdAt ?? null, after?.id ?? null];
    if (q) {
      return queryRows<CustomerRow>(
        this.db.tx,
        `SELECT * FROM customers
          WHERE store_id = $1 AND id = ANY (ARRAY(SELECT app_search_customers($1, $2, $3, $4, $5)))
          ORDER BY created_at DESC, id DESC`,
        [storeId, containsPattern(q), ...cursor, limit + 1],
      );
    }
    return queryRows<CustomerRow>(
      this.db.tx,
      `SELECT * FROM customers
        WHERE store_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $4`,
      [storeId, ...cursor, limit + 1],
    );
  }

  /**
   * Applies the given fields and returns the row after the change; 'email_taken' when another
   * customer of the store has that e-mail (also one written by a concurrent change).
   */
  async update(id: string, fields: CustomerFields): Promise<CustomerRow | 'email_taken'> {
    const set = (['name', 'email', 'phone'] as const).filter((key) => fields[key] !== undefined);
    const assignments = set.map((key, index) => `${key} = $${index + 2}`);
    const rows = await queryRows<CustomerRow>(
      this.db.tx,
      `UPDATE customers SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
      [id, ...set.map((key) => fields[key])],
    ).catch((error: { code?: string; constraint?: string }) => {
      if (error.code === UNIQUE_VIOLATION && error.constraint === EMAIL_KEY) return 'email_taken' as const;
      throw error;
    });
    return rows === 'email_taken' ? rows : rows[0];
  }
}
