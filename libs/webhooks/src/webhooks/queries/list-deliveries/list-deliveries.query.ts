import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { DeliveryStatus, DeliveryView } from '../../../deliveries/delivery.js';

export class ListDeliveriesQuery extends Query<Page<DeliveryView>> {
  constructor(
    readonly webhookId: string,
    readonly status: DeliveryStatus | undefined,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
