import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { DeliveryRepository } from '../../../deliveries/delivery.repository.js';
import { toDeliveryView, type AttemptRow, type DeliveryView } from '../../../deliveries/delivery.js';
import { ListDeliveriesQuery } from './list-deliveries.query.js';

/** The delivery log of a webhook, newest first, each delivery with its attempts (two queries per page). */
@QueryHandler(ListDeliveriesQuery)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveriesQuery> {
  constructor(private readonly deliveries: DeliveryRepository) {}

  async execute({ webhookId, status, limit, cursor }: ListDeliveriesQuery): Promise<Page<DeliveryView>> {
    const rows = await this.deliveries.pageOfWebhook(webhookId, status, limit, decodeCursor(cursor));
    const onPage = rows.slice(0, limit);
    const attempts = new Map<string, AttemptRow[]>();
    if (onPage.length > 0) {
      for (const attempt of await this.deliveries.attemptsOf(onPage.map((row) => row.id))) {
        const list = attempts.get(attempt.delivery_id) ?? [];
        list.push(attempt);
        attempts.set(attempt.delivery_id, list);
      }
    }
    return toPage(rows, limit, (row) => toDeliveryView(row, attempts.get(row.id) ?? []));
  }
}
