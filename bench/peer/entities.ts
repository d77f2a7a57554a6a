import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';

/** NUMERIC arrives from pg as a string; the API answers prices as JSON numbers, and so does the peer. */
const money: ValueTransformer = {
  to: (value: number | null) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** The API's `products` table (schema.sql), mapped as a typical app maps it: one property per column. */
@Entity('products')
export class Product {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  store_id: string;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('numeric', { precision: 12, scale: 2, transformer: money })
  price: number;

  @Column('numeric', { precision: 12, scale: 2, nullable: true, transformer: money })
  compare_price: number | null;

  @Column('text', { nullable: true })
  category: string | null;

  @Column('text', { array: true })
  seo_keywords: string[];

  @Column('text')
  status: 'draft' | 'active' | 'archived';

  @Column('integer')
  inventory_quantity: number;

  @Column('timestamptz')
  created_at: Date;

  @Column('timestamptz')
  updated_at: Date;
}

/** The columns of `stores` the peer reads: who owns the store. */
@Entity('stores')
export class Store {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  owner_id: string;
}

/** The columns of `store_members` the peer reads: an accepted member's user and permissions. */
@Entity('store_members')
export class StoreMember {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  store_id: string;

  @Column('uuid', { nullable: true })
  user_id: string | null;

  @Column('text', { array: true })
  permissions: string[];

  @Column('text')
  status: 'invited' | 'active';
}
