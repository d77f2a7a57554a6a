import { registerStoreResources } from '@app/core';

// The store records of webhooks that routes name by id (see StoreResources in @app/core).
declare module '@app/core' {
  interface StoreResources {
    webhook: true;
  }
}

registerStoreResources({ webhook: { key: 'webhook_id', name: 'Webhook' } });
