import 'reflect-metadata';
import { Controller, Get, HttpCode, Post, UseGuards, type CanActivate } from '@nestjs/common';
import { GUARDS_METADATA, HTTP_CODE_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import type { DiscoveryService } from '@nestjs/core';
import type { IdempotentWrites } from '../idempotency/idempotent-writes.js';
import type { TenantDb } from '../tenancy/db-handles.js';
import { OwnTransactions, RouteTransactions } from './route-transactions.js';

class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Controller('things')
class ThingsController {
  readonly seen: unknown[] = [];

  @Get(':id')
  @UseGuards(AllowAll)
  read(id: string): string {
    this.seen.push(id);
    return `thing ${id}`;
  }

  @Post()
  @HttpCode(202)
  @OwnTransactions()
  async create(body: unknown): Promise<unknown> {
    this.seen.push(body);
    return Promise.resolve({ created: body });
  }

  /** Not a route: left as it is. */
  helper(): string {
    return 'helper';
  }
}

function routesOf(controllers: object[]): RouteTransactions {
  const getControllers = () =>
    controllers.map((instance) => ({ instance, name: instance.constructor.name, isDependencyTreeStatic: () => true }));
  const discovery = { getControllers } as unknown as DiscoveryService;
  return new RouteTransactions({} as TenantDb, {} as IdempotentWrites, discovery);
}

describe('RouteTransactions.wrapRoutes', () => {
  it('wraps each route handler on the instance, with its metadata, and no other method', () => {
    const controller = new ThingsController();
    const prototype = ThingsController.prototype;
    expect(routesOf([controller]).wrapRoutes()).toBe(2);
    for (const name of ['read', 'create'] as const) {
      const wrapper = controller[name];
      expect(wrapper).not.toBe(prototype[name]);
      expect(wrapper.name).toBe(name);
      expect(Reflect.getMetadataKeys(wrapper).sort()).toEqual(Reflect.getMetadataKeys(prototype[name]).sort());
    }
    expect(Reflect.getMetadata(PATH_METADATA, controller.read)).toBe(':id');
    expect(Reflect.getMetadata(GUARDS_METADATA, controller.read)).toEqual([AllowAll]);
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, controller.create)).toBe(202);
    expect(controller.helper).toBe(prototype.helper);
    // The class itself is untouched: another app's instance of it starts from the declared handlers.
    expect(Object.hasOwn(new ThingsController(), 'read')).toBe(false);
  });

  it('refuses a request-scoped controller, whose handlers Nest would call unwrapped on a new instance', () => {
    const scoped = { instance: new ThingsController(), name: 'ThingsController', isDependencyTreeStatic: () => false };
    const discovery = { getControllers: () => [scoped] } as unknown as DiscoveryService;
    const routes = new RouteTransactions({} as TenantDb, {} as IdempotentWrites, discovery);
    expect(() => routes.wrapRoutes()).toThrow('ThingsController is request-scoped');
    expect(routes.wrapped).toBe(false);
    const wrapping = routesOf([new ThingsController()]);
    expect(wrapping.wrapped).toBe(false);
    wrapping.wrapRoutes();
    expect(wrapping.wrapped).toBe(true);
  });

  it('wraps once: a second pass finds every handler wrapped', () => {
    const controller = new ThingsController();
    const routes = routesOf([controller]);
    expect(routes.wrapRoutes()).toBe(2);
    const wrapped = controller.read;
    expect(routes.wrapRoutes()).toBe(0);
    expect(controller.read).toBe(wrapped);
  });

  it('outside a request, a wrapped handler is the handler: same this, arguments and answer', async () => {
    const controller = new ThingsController();
    routesOf([controller]).wrapRoutes();
    expect(controller.read('a1')).toBe('thing a1');
    await expect(controller.create({ n: 1 })).resolves.toEqual({ created: { n: 1 } });
    expect(controller.seen).toEqual(['a1', { n: 1 }]);
  });
});
