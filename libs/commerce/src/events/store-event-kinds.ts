/** The 13 store event kinds of the seed's Events part: what webhooks can subscribe to. */
export const STORE_EVENT_KINDS = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
  'product.created',
  'product.updated',
  'product.deleted',
  'inventory.updated',
  'customer.created',
  'customer.updated',
] as const;
export type StoreEventKind = (typeof STORE_EVENT_KINDS)[number];

/** `data` of product.created / product.updated / product.deleted. */
export interface ProductEventData {
  product_id: string;
  name: string;
  price: number;
  compare_price: number | null;
  category: string | null;
  status: string;
  inventory_quantity: number;
}

/** `data` of inventory.updated. */
export interface InventoryEventData {
  product_id: string;
  previous_quantity: number;
  quantity: number;
  delta: number;
  reason: string | null;
}

/** `data` of customer.created / customer.updated. */
export interface CustomerEventData {
  customer_id: string;
  name: string;
  email: string;
}

/** `data` of every order.* event. */
export interface OrderEventData {
  order_id: string;
  order_number: string;
  total: number;
  currency: string;
  status: string;
  customer: { name: string; email: string } | null;
  items: { product_id: string | null; name: string; quantity: number; price: number }[];
}
