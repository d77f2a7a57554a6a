import { Type } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '../config/settings.js';
import { AsBoolean } from '../config/transforms.js';

export class OutboxConfig extends SettingsGroup {
  @Setting('Whether this process relays store events from the outbox onto the event bus (only `worker` and `all` processes relay).')
  @AsBoolean()
  @IsBoolean()
  OUTBOX_RELAY = true;

  @Setting('How often the relay sweeps for events whose immediate publish was lost (at least 100 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  OUTBOX_SWEEP_INTERVAL_MS = 5000;

  @Setting(
    'How long the webhook dispatch and merchant notifications have to acknowledge a store event before the relay publishes it to them again (then twice as long each time, at most 1 h). 100 to 3600000 ms.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  OUTBOX_ACK_TIMEOUT_MS = 30_000;

  @Setting(
    'Workers delete outbox events dispatched longer ago than this many days (at start, then hourly, in batches); undispatched or unacknowledged ones never. `0` keeps them; at most 3650.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  OUTBOX_RETENTION_DAYS = 7;
}

export const outboxConfig = defineSettings('outbox', '@app/core', OutboxConfig, {
  description: 'The outbox of store events and its relay onto the event bus.',
});
