export interface StoreRow {
  id: string;
  owner_id: string;
  name: string;
  currency: string;
  default_language: string;
  timezone: string;
  created_at: Date;
  updated_at: Date;
}

export interface StoreView {
  id: string;
  owner_id: string;
  name: string;
  currency: string;
  default_language: string;
  timezone: string;
  created_at: string;
  updated_at: string;
}

export function toStoreView(row: StoreRow): StoreView {
  return {
    id: row.id,
    owner_id: row.owner_id,
    name: row.name,
    currency: row.currency,
    default_language: row.default_language,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const STORE_EXAMPLE: StoreView = {
  id: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  owner_id: '0b6f3c1e-8d2a-4e57-9a36-2c1f0e7d9b44',
  name: 'Blue Fern Goods',
  currency: 'USD',
  default_language: 'en',
  timezone: 'America/New_York',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
