import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Product, Store, StoreMember } from './entities.js';
import { JwtStrategy } from './jwt.strategy.js';
import { ProductsController, ProductsService } from './products.js';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      entities: [Product, Store, StoreMember],
      synchronize: false,
      // The API's default pool size (DATABASE_POOL_SIZE).
      extra: { max: Number(process.env.DATABASE_POOL_SIZE ?? 10) },
    }),
    TypeOrmModule.forFeature([Product, Store, StoreMember]),
    PassportModule,
  ],
  controllers: [ProductsController],
  providers: [ProductsService, JwtStrategy],
})
export class PeerModule {}
