import { CreateStoreHandler } from './create-store/create-store.handler.js';
import { UpdateStoreHandler } from './update-store/update-store.handler.js';

export const StoreCommandHandlers = [CreateStoreHandler, UpdateStoreHandler];
