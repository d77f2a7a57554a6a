import { Type } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min, ValidateBy } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '../config/settings.js';
import { AsBoolean } from '../config/transforms.js';

/** The store events API promises a month of events (`GET /functions/v1/stores/{store_id}/events`). */
export const MIN_OUTBOX_RETENTION_DAYS = 30;

export class OutboxConfig extends SettingsGroup {
  @Setting(
    'Whether this process relays store events from the outbox ' +
      'onto the event bus (only `worker` and `all` processes relay).',
  )
  @AsBoolean()
  @IsBoolean()
  OUTBOX_RELAY = true;

  @Setting('How often the relay sweeps for events whose immediate publish was lost (at least 100 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  OUTBOX_SWEEP_INTERVAL_MS = 5000;

  @Setting(
    'How long the webhook dispatch and merchant notifications have to acknowledge a store event before ' +
      'the relay publishes it to them again (then twice as long each time, at most 1 h). 100 to 3600000 ms.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  OUTBOX_ACK_TIMEOUT_MS = 30_000;

  @Setting(
    'Workers delete outbox events dispatched longer ago than this many days (at start, then hourly, in batches); ' +
      'undispatched or unacknowledged ones never. `GET /functions/v1/stores/{store_id}/events` lists what is ' +
      'kept, so at least 30; `0` keeps them; at most 3650.',
  )
  @Type(() => Number)
  @IsInt()
  @ValidateBy({
    name: 'zeroOrAtLeastMinimum',
    validator: {
      validate: (value: unknown) => typeof value === 'number' && (value === 0 || value >= MIN_OUTBOX_RETENTION_DAYS),
      defaultMessage: () => `OUTBOX_RETENTION_DAYS must be 0 (keep) or at least ${MIN_OUTBOX_RETENTION_DAYS}`,
    },
  })
  @Max(3650)
  OUTBOX_RETENTION_DAYS = MIN_OUTBOX_RETENTION_DAYS;
}

export const outboxConfig = defineSettings('outbox', '@app/core', OutboxConfig, {
  description: 'The outbox of store events and its relay onto the event bus.',
});
