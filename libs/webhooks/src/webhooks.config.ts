import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { AsNumberList, defineSettings, Setting, SettingsGroup } from '@app/core';

export class WebhooksConfig extends SettingsGroup {
  @Setting('How long a receiver has to answer a delivery (100–60000 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  @Setting(
    'Delay before each delivery attempt: the first at once, then 1 min, 5 ' +
      'min, 30 min, 1 h. At most 5 attempts (delays past the 5th are unused): the ' +
      "5th failure, or the last listed one's when fewer, disables the webhook.",
  )
  @AsNumberList()
  @IsInt({ each: true, message: 'WEBHOOK_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  WEBHOOK_RETRY_DELAYS_MS: number[] = [0, 60_000, 300_000, 1_800_000, 3_600_000];

  @Setting('Delivery jobs one worker process runs at once (1–256): requests in flight, and attempts being parked.')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_WORKER_CONCURRENCY = 8;

  @Setting(
    'Requests in flight to one webhook at a time, across all worker processes (1–100). An attempt that ' +
      'finds them taken waits, parked, without holding a worker (docs/architecture.md § Webhooks, the gate).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_ENDPOINT_CONCURRENCY = 2;

  @Setting(
    'Consecutive failed attempts to one webhook (timeouts, errors, non-2xx) that open ' +
      'its circuit (1–1000): its deliveries wait, with no request sent, for the cool-down.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  @Setting(
    'How long an open circuit waits before one probe tries the webhook again (100–3600000 ' +
      'ms); the probe’s success closes it, its failure opens it for another cool-down.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  WEBHOOK_CIRCUIT_COOLDOWN_MS = 60_000;

  @Setting(
    'Workers delete finished webhook deliveries (succeeded, failed, cancelled, skipped) last changed longer ago than ' +
      'this many days, with their attempts (they leave the delivery log); pending ones never. `0` keeps them; ' +
      'at most 3650.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(3650)
  DELIVERY_RETENTION_DAYS = 30;
}

export const webhooksConfig = defineSettings('webhooks', '@app/webhooks', WebhooksConfig, {
  description:
    'Webhook deliveries: timeouts, retries, fair sharing between webhooks, circuits, and how long the log is kept.',
});
