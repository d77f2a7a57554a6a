import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { ApiKeyRepository } from '../api-key.repository.js';
import { toApiKeyView, type ApiKeyView } from '../api-key.js';

export class ListApiKeysQuery extends Query<Page<ApiKeyView>> {
  constructor(
    readonly storeId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery> {
  constructor(private readonly keys: ApiKeyRepository) {}

  async execute({ storeId, limit, cursor }: ListApiKeysQuery): Promise<Page<ApiKeyView>> {
    return toPage(await this.keys.pageOfStore(storeId, limit, decodeCursor(cursor)), limit, toApiKeyView);
  }
}
