import type { HttpConfig, SafeHttpClient } from '@app/core';
import type { SocialConfig } from '../social.config.js';
import { FACEBOOK } from './facebook/facebook.platform.js';
import { INSTAGRAM } from './instagram/instagram.platform.js';
import { SandboxPlatform } from './sandbox.platform.js';
import type { SocialPlatformDefinition, SocialPlatformRegistry } from './social-platform.js';
import { THREADS } from './threads/threads.platform.js';
import { TIKTOK } from './tiktok/tiktok.platform.js';
import { X } from './x/x.platform.js';
import { YOUTUBE } from './youtube/youtube.platform.js';

/**
 * The social platforms: one folder each (platforms/<id>/: the definition and the live client, with
 * its spec), one line here. Everything else derives from this list: the ids the API accepts (DTO
 * validation and its messages, the OpenAPI enums), the `social_platforms` rows the database's
 * foreign keys check, the AI functions' text limits and offline writing, docs/platforms.md.
 * Adding a platform: docs/extending.md § A social platform.
 */
export const SOCIAL_PLATFORM_DEFINITIONS = [INSTAGRAM, FACEBOOK, X, TIKTOK, THREADS, YOUTUBE] as const;

export type SocialPlatformId = (typeof SOCIAL_PLATFORM_DEFINITIONS)[number]['id'];

/** The platform ids, in the registry's order. */
export const SOCIAL_PLATFORMS: readonly SocialPlatformId[] = Object.freeze(
  SOCIAL_PLATFORM_DEFINITIONS.map((platform) => platform.id),
);

const BY_ID: ReadonlyMap<string, SocialPlatformDefinition<SocialPlatformId>> = new Map(
  SOCIAL_PLATFORM_DEFINITIONS.map((platform) => [platform.id, platform]),
);
if (BY_ID.size !== SOCIAL_PLATFORM_DEFINITIONS.length) throw new Error('two social platforms share an id');

export function isSocialPlatform(value: unknown): value is SocialPlatformId {
  return typeof value === 'string' && BY_ID.has(value);
}

/** The definition of a registered platform. */
export function socialPlatformDefinition(id: SocialPlatformId): SocialPlatformDefinition<SocialPlatformId> {
  const definition = BY_ID.get(id);
  if (!definition) throw new Error(`"${id}" is not a registered social platform`);
  return definition;
}

/** The longest post text each platform accepts, in its own units (X: weighted characters). */
export const PLATFORM_TEXT_LIMITS: Readonly<Record<SocialPlatformId, number>> = Object.freeze(
  Object.fromEntries(SOCIAL_PLATFORM_DEFINITIONS.map((platform) => [platform.id, platform.textLimit])) as Record<
    SocialPlatformId,
    number
  >,
);

/** A count as prose writes it: digits up to 9999, thousands separated from 10,000 (`2200`, `63,206`). */
const count = (n: number) => (n >= 10_000 ? n.toLocaleString('en-US') : String(n));

/**
 * The text limits in a phrase, shortest first, platforms with the same limit together:
 * `X 280 weighted, Threads 500, Instagram and TikTok 2200, YouTube 5000, Facebook 63,206`.
 */
export function describeTextLimits(): string {
  const groups = new Map<string, string[]>();
  for (const platform of [...SOCIAL_PLATFORM_DEFINITIONS].sort((a, b) => a.textLimit - b.textLimit)) {
    const limit = `${count(platform.textLimit)}${platform.textCount === 'weighted' ? ' weighted' : ''}`;
    groups.set(limit, [...(groups.get(limit) ?? []), platform.displayName]);
  }
  return [...groups].map(([limit, names]) => `${names.join(' and ')} ${limit}`).join(', ');
}

/**
 * Each platform's text limit and media, as the OpenAPI document describes publishing: `Instagram: 2200 characters, …`.
 */
export function describePublishingRules(): string {
  return SOCIAL_PLATFORM_DEFINITIONS.map((platform) => {
    const unit = platform.textCount === 'weighted' ? 'weighted characters (a URL counts 23)' : 'characters';
    return `${platform.displayName}: ${count(platform.textLimit)} ${unit}, ${platform.media}`;
  }).join('; ');
}

/** The platforms whose connect uses PKCE, by name: `X, TikTok and YouTube`. */
export function describePkcePlatforms(): string {
  const names = SOCIAL_PLATFORM_DEFINITIONS.filter((platform) => platform.usesPkce).map(
    (platform) => platform.displayName,
  );
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** One platform per id: the live APIs when SOCIAL_MODE=live, else the sandbox with the same rules. */
export function buildPlatformRegistry(
  social: SocialConfig,
  http: HttpConfig,
  client: SafeHttpClient,
): SocialPlatformRegistry {
  const live = SOCIAL_PLATFORM_DEFINITIONS.map((platform) => platform.live(social, client));
  const chosen =
    social.SOCIAL_MODE === 'live' ? live : live.map((platform) => new SandboxPlatform(platform, http.baseUrl));
  return new Map(chosen.map((platform) => [platform.id, platform]));
}
