import { Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { AsNumberList, defineSettings, Setting, SettingsGroup, type TextSetting } from '@app/core';
import { SOCIAL_PLATFORM_DEFINITIONS } from './platforms/registry.js';

export class SocialConfig extends SettingsGroup {
  @Setting(
    '`sandbox`: connect and publish offline against the built-in sandbox. `live`: the ' +
      'platforms’ APIs with the credentials of each platform’s settings (docs/social.md).',
  )
  @IsIn(['sandbox', 'live'])
  SOCIAL_MODE: 'sandbox' | 'live' = 'sandbox';

  @Setting(
    'Longest wait for one request to a platform’s API in live mode (100–120000 ms). ' +
      'A publish call that times out is reported `unknown_outcome` and not retried.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(120_000)
  SOCIAL_HTTP_TIMEOUT_MS = 15_000;

  @Setting(
    'Waits before each further attempt of a scheduled post whose platform answered ' +
      '429 or 5xx (a longer `Retry-After` wins); their count is the number of retries.',
  )
  @AsNumberList()
  @IsInt({ each: true, message: 'SOCIAL_RETRY_DELAYS_MS must be comma-separated whole milliseconds' })
  @Min(0, { each: true })
  @Max(86_400_000, { each: true })
  SOCIAL_RETRY_DELAYS_MS: number[] = [60_000, 300_000];

  @Setting(
    'A scheduled post left `publishing` this long by a worker that died is closed as `failed`, its ' +
      'results `interrupted` (never published again: only the platform knows whether it went out).',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SOCIAL_INTERRUPTED_AFTER_MS = 900_000;
}

/** Every registered platform's settings, each once (Facebook and Instagram share Facebook Login's). */
function platformSettings(): Record<string, TextSetting> {
  return Object.assign({}, ...SOCIAL_PLATFORM_DEFINITIONS.map((platform) => platform.settings));
}

export const socialConfig = defineSettings('social', '@app/social', SocialConfig, {
  description:
    'Social publishing: sandbox or live, the platforms’ API timeout, retries and ' +
    'interrupted posts; then each platform’s own settings (app credentials, API addresses), ' +
    'declared in its folder (libs/social/src/platforms/<id>/) and checked with these.',
  textSettings: platformSettings,
});
