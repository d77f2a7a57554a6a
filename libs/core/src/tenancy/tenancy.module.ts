import { Module } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { ApiKeyLookup, CallerLookup } from './caller-lookup.js';
import { ConnectionsModule } from './connections.module.js';
import { DbScopes } from './current-scope.js';
import { ScopedDb, SystemDb, TenantDb } from './db-handles.js';
import { RequestBindingModule } from './request-binding.js';
import { ScopedTypeOrmAdapter } from './scoped-transaction-adapter.js';

/**
 * The tenancy module: the two connections (kept inside: only the handles below reach them), the
 * database scopes, the handles code queries through (TenantDb, SystemDb, ScopedDb), the binding of a
 * request's transaction to its caller, and the caller's lookup.
 */
@Module({
  imports: [ConnectionsModule, RequestBindingModule],
  providers: [DbScopes, TenantDb, SystemDb, ScopedDb, CallerLookup, ApiKeyLookup],
  exports: [RequestBindingModule, DbScopes, TenantDb, SystemDb, ScopedDb, CallerLookup, ApiKeyLookup],
})
export class TenancyModule {}

/** The transactional plugin of nestjs-cls, on the connection the current database scope allows. */
export function scopedTransactions(): ClsPluginTransactional {
  return new ClsPluginTransactional({ imports: [ConnectionsModule], adapter: new ScopedTypeOrmAdapter() });
}
