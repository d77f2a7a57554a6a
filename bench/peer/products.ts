import {
  BadRequestException,
  Controller,
  createParamDecorator,
  type ExecutionContext,
  ForbiddenException,
  Get,
  Injectable,
  Param,
  Query,
  UseGuards,
} from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { InjectRepository } from '@nestjs/typeorm';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { Equal, ILike, LessThan, type FindOptionsWhere, type Repository } from 'typeorm';
import type { AuthUser } from './jwt.strategy.js';
import { Product, Store, StoreMember } from './entities.js';

export class StoreParams {
  @IsUUID()
  store_id: string;
}

/** The query string the API's product list takes: `limit`, `cursor`, `status`, `category`, `q`. */
export class ListProductsDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @IsOptional()
  @IsString()
  cursor?: string;

  @IsOptional()
  @IsIn(['draft', 'active', 'archived'])
  status?: 'draft' | 'active' | 'archived';

  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

/** The API's cursor: the last row's (created_at, id), as base64url JSON, so that pages go on the same way. */
const encodeCursor = (product: Product) =>
  Buffer.from(JSON.stringify({ t: product.created_at.toISOString(), i: product.id })).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const { t, i } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: string; i: string };
    const createdAt = new Date(t);
    if (typeof i !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id: i };
  } catch {
    throw new BadRequestException('cursor is not a cursor returned by this list');
  }
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectRepository(Product) private readonly products: Repository<Product>,
    @InjectRepository(Store) private readonly stores: Repository<Store>,
    @InjectRepository(StoreMember) private readonly members: Repository<StoreMember>,
  ) {}

  /** Owners and members with `catalog` see every product; other members the active ones. */
  async access(storeId: string, userId: string): Promise<{ allStatuses: boolean }> {
    const store = await this.stores.findOne({ where: { id: storeId } });
    if (store?.owner_id === userId) return { allStatuses: true };
    const member = await this.members.findOne({ where: { store_id: storeId, user_id: userId, status: 'active' } });
    if (!member) throw new ForbiddenException('You do not have access to this store');
    return { allStatuses: member.permissions.includes('catalog') };
  }

  async list(storeId: string, query: ListProductsDto, allStatuses: boolean) {
    const where: FindOptionsWhere<Product> = { store_id: storeId };
    if (!allStatuses) where.status = 'active';
    else if (query.status) where.status = query.status;
    if (query.category) where.category = query.category;
    // OR in find options is an array of conditions: the text search and the cursor each make two.
    let conditions: FindOptionsWhere<Product>[] = [where];
    if (query.q) {
      const pattern = `%${query.q}%`;
      conditions = conditions.flatMap((c) => [
        { ...c, name: ILike(pattern) },
        { ...c, description: ILike(pattern) },
      ]);
    }
    if (query.cursor) {
      const after = decodeCursor(query.cursor);
      conditions = conditions.flatMap((c) => [
        { ...c, created_at: LessThan(after.createdAt) },
        { ...c, created_at: Equal(after.createdAt), id: LessThan(after.id) },
      ]);
    }
    const rows = await this.products.find({
      where: conditions,
      order: { created_at: 'DESC', id: 'DESC' },
      take: query.limit + 1,
    });
    const more = rows.length > query.limit;
    const data = more ? rows.slice(0, query.limit) : rows;
    return { data, next_cursor: more ? encodeCursor(data[data.length - 1]) : null };
  }
}

/** The user the JWT guard put on the request. */
const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): AuthUser => {
  return context.switchToHttp().getRequest<{ user: AuthUser }>().user;
});

@Controller('functions/v1/stores/:store_id/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @UseGuards(AuthGuard('jwt'))
  async list(@Param() { store_id }: StoreParams, @Query() query: ListProductsDto, @CurrentUser() user: AuthUser) {
    const { allStatuses } = await this.products.access(store_id, user.userId);
    return { success: true, ...(await this.products.list(store_id, query, allStatuses)) };
  }
}
