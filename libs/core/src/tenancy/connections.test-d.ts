import type { Connections } from './connections.js';

declare const connections: Connections;

// The service login's DataSource is private: only the tenancy module's own `serviceDataSource` reads it.
// @ts-expect-error private
void connections.service;
// The request role's is the module's to use (the caller lookup, the adapter).
void connections.request;
