import { registerStoreResources } from '@app/core';

// The store records of social publishing that routes name by id (see StoreResources in @app/core).
declare module '@app/core' {
  interface StoreResources {
    social_account: true;
    social_post: true;
  }
}

registerStoreResources({
  social_account: { key: 'account_id', name: 'Social account' },
  social_post: { key: 'post_id', name: 'Scheduled post' },
});
