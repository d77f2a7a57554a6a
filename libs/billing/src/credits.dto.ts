import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsNotEmpty, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '@app/core';
import { MAX_GRANT } from './credit-limits.js';

const STORE_ID_EXAMPLE = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** `GET /functions/v1/credits?store_id=&limit=&cursor=` (the ledger is paginated, newest first). */
export class CreditsQueryDto extends PageQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The store whose credits to read', example: STORE_ID_EXAMPLE })
  @IsUUID()
  store_id!: string;
}

export class GrantCreditsDto {
  @ApiProperty({ format: 'uuid', description: 'The store to credit', example: STORE_ID_EXAMPLE })
  @IsUUID()
  store_id!: string;

  @ApiProperty({
    description: `Credits to add, a whole number from 1 to ${MAX_GRANT}`,
    example: 100,
    minimum: 1,
    maximum: MAX_GRANT,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_GRANT)
  amount!: number;

  @ApiProperty({
    description: 'Why, for the ledger (its `reference`); 1–200 characters',
    example: 'Launch promotion',
    maxLength: 200,
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  reason!: string;
}
