import { GetStoreHandler } from './get-store/get-store.handler.js';
import { ListStoresHandler } from './list-stores/list-stores.handler.js';

export const StoreQueryHandlers = [GetStoreHandler, ListStoresHandler];
