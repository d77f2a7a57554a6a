import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { IsMoney, PageQueryDto } from '@app/core';
import { PRODUCT_STATUSES, type ProductStatus } from './product.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
export const MAX_PRICE = 9_999_999_999.99;
export const MAX_QUANTITY = 1_000_000_000;

/** compare_price, when both are given, is at least the price. */
function NotBelowPrice() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'notBelowPrice',
      target: target.constructor,
      propertyName,
      options: { message: 'compare_price must be greater than or equal to price' },
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          const price = (args.object as { price?: unknown }).price;
          return (
            value === null ||
            value === undefined ||
            typeof price !== 'number' ||
            (typeof value === 'number' && value >= price)
          );
        },
      },
    });
}

export class CreateProductDto {
  @ApiProperty({ description: 'Product name, 1 to 200 characters', example: 'Linen tote bag' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({
    description: 'Plain-text description, up to 10,000 characters',
    example: 'Natural linen, 40 × 35 cm.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @ApiProperty({ description: 'Price in the store currency, at most 2 decimals', example: 24.9 })
  @IsMoney()
  @Min(0)
  @Max(MAX_PRICE)
  price: number;

  @ApiPropertyOptional({
    type: 'number',
    description: 'Price before discount; at least `price`; `null` for none',
    example: 29.9,
    nullable: true,
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsMoney()
  @Min(0)
  @Max(MAX_PRICE)
  @NotBelowPrice()
  compare_price?: number | null;

  @ApiPropertyOptional({ description: 'Category label', example: 'Bags' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(100)
  category?: string;

  @ApiPropertyOptional({
    description: 'Search keywords, up to 20 of up to 100 characters',
    example: ['linen tote', 'eco bag'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  seo_keywords?: string[];

  @ApiPropertyOptional({ description: 'Units in stock', example: 42, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_QUANTITY)
  inventory_quantity?: number;

  @ApiPropertyOptional({
    enum: PRODUCT_STATUSES,
    default: 'draft',
    description: 'Only active products can be ordered',
    example: 'active',
  })
  @IsOptional()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;
}

/** PATCH: any field of the product; stock changes go through POST /products/{id}/inventory instead. */
export class UpdateProductDto extends PartialType(CreateProductDto) {}

/**
 * Fields a PATCH may clear with null; PartialType lets null through every field, so the others are refused in the
 * handler.
 */
export const NULLABLE_PRODUCT_FIELDS = ['description', 'compare_price', 'category'] as const;

export class ListProductsQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, example: 'active' })
  @IsOptional()
  @IsIn(PRODUCT_STATUSES)
  status?: ProductStatus;

  @ApiPropertyOptional({ description: 'Exact category', example: 'Bags' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive text search in name and description', example: 'tote' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class AdjustInventoryDto {
  @ApiPropertyOptional({ description: 'Change to apply (negative to remove); give this or `quantity`', example: -3 })
  @ValidateIf((dto: AdjustInventoryDto) => dto.quantity === undefined || dto.delta !== undefined)
  @IsInt({ message: 'give either delta (an integer) or quantity' })
  @Min(-MAX_QUANTITY)
  @Max(MAX_QUANTITY)
  delta?: number;

  @ApiPropertyOptional({ description: 'New absolute stock level; give this or `delta`', example: 40 })
  @ValidateIf((dto: AdjustInventoryDto) => dto.quantity !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_QUANTITY)
  quantity?: number;

  @ApiPropertyOptional({ description: 'Why the stock changed, up to 200 characters', example: 'restock from supplier' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  reason?: string;
}
