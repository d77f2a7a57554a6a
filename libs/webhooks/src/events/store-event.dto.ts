import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches } from 'class-validator';
import { PageQueryDto, type StoreEventName } from '@app/core';
import { STORE_EVENT_NAMES } from './store-event-catalog.js';

const SINCE_MESSAGE = 'since must be an ISO 8601 timestamp such as 2026-11-21T00:00:00Z';

/** `?since=&type=&limit=&cursor=` of `GET /functions/v1/stores/{store_id}/events`. */
export class ListStoreEventsParams extends PageQueryDto {
  @ApiPropertyOptional({
    description:
      'ISO 8601 timestamp with a time zone: only events created at or after it. Default: the oldest event kept ' +
      '(events are kept at least 30 days, `OUTBOX_RETENTION_DAYS`).',
    example: '2026-11-21T00:00:00Z',
  })
  @IsOptional()
  @IsString()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: SINCE_MESSAGE })
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: 'since must carry a time zone (Z or ±hh:mm)' })
  // ISO 8601 forms that JavaScript's Date cannot read (week dates, expanded years) are refused too.
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i, {
    message: 'since must be a timestamp such as 2026-11-21T00:00:00Z',
  })
  since?: string;

  @ApiPropertyOptional({ enum: STORE_EVENT_NAMES, description: 'Only events of this kind', example: 'order.paid' })
  @IsOptional()
  @IsIn(STORE_EVENT_NAMES, { message: `type must be one of the store event kinds: ${STORE_EVENT_NAMES.join(', ')}` })
  type?: StoreEventName;
}
