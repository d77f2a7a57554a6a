import { ConfigError } from '@app/core';
import { DEFAULT_HOURLY_LIMITS, hourlyLimits } from './credit-costs.js';

describe('hourlyLimits', () => {
  it('keeps the documented maxima when nothing overrides them', () => {
    expect(hourlyLimits(undefined)).toEqual({
      'generate-product': 100,
      'generate-blog-cover': 50,
      'generate-blog-autopilot': 20,
      'research-social-context': 30,
      'social-generate-content': 60,
    });
  });

  it('applies overrides by function name and leaves the others', () => {
    const limits = hourlyLimits(' social-generate-content : 120 , generate-product:5');
    expect(limits['social-generate-content']).toBe(120);
    expect(limits['generate-product']).toBe(5);
    expect(limits['generate-blog-cover']).toBe(DEFAULT_HOURLY_LIMITS['generate-blog-cover']);
  });

  it('refuses an unknown function name', () => {
    expect(() => hourlyLimits('generate-poem:3')).toThrow(ConfigError);
    expect(() => hourlyLimits('generate-poem:3')).toThrow(
      /AI_HOURLY_LIMITS \("generate-poem:3"\): unknown function "generate-poem"/,
    );
  });
});
