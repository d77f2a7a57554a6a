import { X } from './x/x.platform.js';
import {
  describePkcePlatforms,
  describeTextLimits,
  isSocialPlatform,
  SOCIAL_PLATFORM_DEFINITIONS,
  SOCIAL_PLATFORMS,
  socialPlatformDefinition,
} from './registry.js';
import { definePlatform } from './social-platform.js';

describe('the social platform registry', () => {
  it('names each platform once; its ids are what the API accepts', () => {
    expect(new Set(SOCIAL_PLATFORMS).size).toBe(SOCIAL_PLATFORM_DEFINITIONS.length);
    for (const id of SOCIAL_PLATFORMS) {
      expect(isSocialPlatform(id)).toBe(true);
      expect(socialPlatformDefinition(id).id).toBe(id);
    }
    expect(isSocialPlatform('toString')).toBe(false);
    expect(() => socialPlatformDefinition('myspace' as never)).toThrow('"myspace" is not a registered social platform');
  });

  it('describes the limits and PKCE from the definitions', () => {
    expect(describeTextLimits()).toBe(
      'X 280 weighted, Threads 500, Instagram and TikTok 2200, YouTube 5000, Facebook 63,206',
    );
    expect(describePkcePlatforms()).toBe('X, TikTok and YouTube');
  });

  it('refuses, when a definition loads, an id, a limit or an hour that cannot be right', () => {
    const define = (change: object) => () => definePlatform({ ...X, ...change });
    expect(define({})).not.toThrow();
    expect(define({ id: 'Bluesky' })).toThrow(
      'social platform id "Bluesky": lower-case letters, digits and _, at most 30',
    );
    expect(define({ textLimit: 0 })).toThrow('social platform x: textLimit must be a positive whole number');
    expect(define({ textLimit: 2.5 })).toThrow('textLimit');
    expect(define({ audience: { ...X.audience, peakHour: 24 } })).toThrow(
      'social platform x: audience.peakHour must be an hour, 0 to 23',
    );
  });
});
