import { HttpStatus } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError, OutboxService, type StoreAccess, type StoreEventOf } from '@app/core';
import type { ProductRow } from '../../../products/product.js';
import { ProductRepository } from '../../../products/product.repository.js';
import { OrderRepository, type NewOrderItem, type OrderCustomer } from '../../order.repository.js';
import { MAX_ORDER_TOTAL_CENTS, fromCents, orderEventData, toCents, toOrderView, type OrderView } from '../../order.js';
import { PlaceOrderCommand } from './place-order.command.js';

type Line = { product_id: string; quantity: number };

/**
 * Places an order in one transaction: prices from the catalog, stock reserved for every item or
 * none, the store's next order number, then `order.created` and one `inventory.updated` per item.
 * Any refusal throws, and the request transaction rolls back every reservation, the number and the events.
 */
@CommandHandler(PlaceOrderCommand)
export class PlaceOrderHandler implements ICommandHandler<PlaceOrderCommand> {
  constructor(
    private readonly orders: OrderRepository,
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ storeId, access, userId, customerId, items }: PlaceOrderCommand): Promise<OrderView> {
    const lines = items.map((item) => ({ product_id: item.product_id.toLowerCase(), quantity: item.quantity }));
    const customer = await this.customerFor(storeId, access, userId, customerId?.toLowerCase());
    const priced = await this.price(storeId, lines);
    const total = priced.reduce((sum, line) => sum + toCents(line.price) * BigInt(line.quantity), 0n);
    if (total > MAX_ORDER_TOTAL_CENTS) {
      throw new ApiError(HttpStatus.UNPROCESSABLE_ENTITY, 'UNPROCESSABLE', `The order total exceeds ${fromCents(MAX_ORDER_TOTAL_CENTS)}`);
    }
    const order = await this.orders.insert(storeId, {
      customerId: customer?.id ?? null,
      total: fromCents(total),
      placedBy: userId,
    });
    await this.orders.insertItems(order, priced);
    const moves = await this.takeStock(storeId, order.id, lines);
    const details = (await this.orders.findDetails(order.id))!;

    // One event per item, in the order the items were given (the stock was taken in product id order).
    const byProduct = new Map(moves.map((move) => [move.product_id, move]));
    const inventory = lines
      .map((line) => byProduct.get(line.product_id)!)
      .map((move): StoreEventOf<'inventory.updated'> => ({
        event: 'inventory.updated',
        data: {
          product_id: move.product_id,
          previous_quantity: move.previous_quantity,
          quantity: move.quantity,
          delta: move.delta,
          reason: `order ${order.order_number}`,
        },
      }));
    await this.outbox.appendAll(storeId, [{ event: 'order.created', data: orderEventData(details) }, ...inventory]);
    return toOrderView(details);
  }

  /**
   * Staff (with `orders`) may name any customer of the store, or none. A customer orders for itself:
   * `customer_id` omitted or its own.
   */
  private async customerFor(
    storeId: string,
    access: StoreAccess,
    userId: string | null,
    customerId: string | undefined,
  ): Promise<OrderCustomer | null> {
    if (access.relation === 'customer') {
      if (userId === null) throw ApiError.forbidden('Customers place orders for themselves only');
      const own = await this.orders.findCustomerOfUser(storeId, userId);
      if (!own) throw ApiError.forbidden('Your account has no customer record in this store');
      if (customerId !== undefined && customerId !== own.id) throw ApiError.forbidden('Customers place orders for themselves only');
      return own;
    }
    if (!access.permissions.includes('orders')) throw ApiError.forbidden('This needs the "orders" permission on the store');
    if (customerId === undefined) return null;
    const customer = await this.orders.findCustomer(storeId, customerId);
    if (!customer) throw ApiError.notFound('Customer');
    return customer;
  }

  /** Each item at its catalog name and price; 422 naming every item that is not an active product of the store. */
  private async price(storeId: string, lines: Line[]): Promise<NewOrderItem[]> {
    const found = new Map((await this.products.findManyVisible(lines.map((line) => line.product_id))).map((p) => [p.id, p]));
    const orderable = (product: ProductRow | undefined): product is ProductRow =>
      product?.store_id === storeId && product.status === 'active';
    const refused = lines.flatMap((line, index) => (orderable(found.get(line.product_id)) ? [] : [{ index, product_id: line.product_id }]));
    if (refused.length > 0) throw notOrderable(refused);
    return lines.map((line) => {
      const product = found.get(line.product_id)!;
      return { product_id: product.id, name: product.name, quantity: line.quantity, price: product.price };
    });
  }

  /**
   * Takes the order's stock in the database (app_take_order_stock: exactly its items, per product in
   * ascending id order so that concurrent orders cannot deadlock, never below zero). The first
   * product short of stock ends the order with 409 OUT_OF_STOCK, and the rollback returns what was
   * already taken, and the order's number.
   */
  private async takeStock(storeId: string, orderId: string, lines: Line[]) {
    const moves = await this.orders.takeStock(orderId);
    const failed = moves.find((move) => !move.taken);
    if (failed) {
      const sorted = [...lines].sort((a, b) => (a.product_id < b.product_id ? -1 : a.product_id > b.product_id ? 1 : 0));
      throw await this.shortOfStock(
        storeId,
        sorted.filter((line) => line.product_id >= failed.product_id),
        lines,
      );
    }
    return moves;
  }

  /** The error for a failed reservation: the item that failed and every later one that is short too. */
  private async shortOfStock(storeId: string, unreserved: Line[], lines: Line[]): Promise<ApiError> {
    const current = new Map((await this.products.findManyVisible(unreserved.map((line) => line.product_id))).map((p) => [p.id, p]));
    const failed = current.get(unreserved[0].product_id);
    // Made inactive (or deleted) since it was priced: not a stock problem.
    if (failed?.store_id !== storeId || failed.status !== 'active') {
      return notOrderable([
        { index: lines.findIndex((line) => line.product_id === unreserved[0].product_id), product_id: unreserved[0].product_id },
      ]);
    }
    const short = unreserved
      .filter((line, index) => index === 0 || (current.get(line.product_id)?.inventory_quantity ?? 0) < line.quantity)
      .map((line) => ({
        product_id: line.product_id,
        requested: line.quantity,
        available: current.get(line.product_id)?.inventory_quantity ?? 0,
      }));
    const message =
      short.length === 1
        ? `Only ${short[0].available} of "${failed.name}" in stock: cannot order ${short[0].requested}`
        : `${short.length} items are short of stock`;
    return new ApiError(HttpStatus.CONFLICT, 'OUT_OF_STOCK', message, short);
  }
}

function notOrderable(refused: { index: number; product_id: string }[]): ApiError {
  return new ApiError(
    HttpStatus.UNPROCESSABLE_ENTITY,
    'UNPROCESSABLE',
    refused.length === 1 ? `Product ${refused[0].product_id} cannot be ordered` : `${refused.length} products cannot be ordered`,
    refused.map(({ index, product_id }) => ({
      field: `items.${index}.product_id`,
      product_id,
      message: 'is not an active product of this store',
    })),
  );
}
