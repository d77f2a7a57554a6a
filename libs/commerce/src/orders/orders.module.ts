import { Module } from '@nestjs/common';

/** Orders: routes, commands and queries (being built). */
@Module({})
export class OrdersModule {}
