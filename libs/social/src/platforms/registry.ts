import type { Provider } from '@nestjs/common';
import { AppConfig, SafeHttpClient } from '@app/core';
import { FacebookPlatform } from './facebook.platform.js';
import { InstagramPlatform } from './instagram.platform.js';
import { SandboxPlatform } from './sandbox.platform.js';
import { SOCIAL_PLATFORMS_REGISTRY, type SocialPlatform, type SocialPlatformRegistry } from './social-platform.js';
import { ThreadsPlatform } from './threads.platform.js';
import { TikTokPlatform } from './tiktok.platform.js';
import { XPlatform } from './x.platform.js';
import { YouTubePlatform } from './youtube.platform.js';

/** The six live platforms, in the order of `SOCIAL_PLATFORMS`. */
export function livePlatforms(config: AppConfig, http: SafeHttpClient): SocialPlatform[] {
  return [
    new InstagramPlatform(config),
    new FacebookPlatform(config),
    new XPlatform(config, http),
    new TikTokPlatform(config),
    new ThreadsPlatform(config),
    new YouTubePlatform(config, http),
  ];
}

/** One platform per id: the live APIs when SOCIAL_MODE=live, else the sandbox with the same rules. */
export function buildPlatformRegistry(config: AppConfig, http: SafeHttpClient): SocialPlatformRegistry {
  const live = livePlatforms(config, http);
  const chosen = config.SOCIAL_MODE === 'live' ? live : live.map((platform) => new SandboxPlatform(platform, config.baseUrl));
  return new Map(chosen.map((platform) => [platform.id, platform]));
}

/** The Nest provider of `SOCIAL_PLATFORMS_REGISTRY`. */
export const socialPlatformRegistry: Provider = {
  provide: SOCIAL_PLATFORMS_REGISTRY,
  inject: [AppConfig, SafeHttpClient],
  useFactory: buildPlatformRegistry,
};
