import { ApiProperty } from '@nestjs/swagger';
import type { CustomerEventData } from '../events/commerce-events.js';
import { isoTimestamp } from '@app/core';

export interface CustomerRow {
  id: string;
  store_id: string;
  user_id: string | null;
  name: string;
  email: string;
  phone: string | null;
  created_at: Date;
  updated_at: Date;
}

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** A customer record as the API returns it; the class documents it in the OpenAPI document (`CustomerView`). */
export class CustomerView {
  @ApiProperty({ format: 'uuid', example: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: "The customer's account when it signed up itself; `null` for a record made by staff",
    example: null,
  })
  user_id!: string | null;
  @ApiProperty({ example: 'Grace Hopper' })
  name!: string;
  @ApiProperty({ format: 'email', example: 'grace@example.com' })
  email!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'As given; `null` when none', example: '+1 555 0100' })
  phone!: string | null;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  updated_at!: string;
}

export function toCustomerView(row: CustomerRow): CustomerView {
  return {
    id: row.id,
    store_id: row.store_id,
    user_id: row.user_id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function customerEventData(row: CustomerRow): CustomerEventData {
  return { customer_id: row.id, name: row.name, email: row.email };
}
