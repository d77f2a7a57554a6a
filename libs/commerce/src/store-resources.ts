import { registerStoreResources } from '@app/core';

// The store records of commerce that routes name by id (see StoreResources in @app/core).
declare module '@app/core' {
  interface StoreResources {
    product: true;
    customer: true;
    order: true;
  }
}

registerStoreResources({
  product: { key: 'product_id', name: 'Product' },
  customer: { key: 'customer_id', name: 'Customer' },
  order: { key: 'order_id', name: 'Order' },
});
