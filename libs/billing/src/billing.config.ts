import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ConfigError, defineSettings, Setting, SettingsGroup } from '@app/core';
import { hourlyLimits } from './credit-costs.js';

export class BillingConfig extends SettingsGroup {
  @Setting('AI credits granted to every new store (a `grant` ledger entry written with the store), 0–1000000.')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  STORE_WELCOME_CREDITS = 50;

  @Setting(
    'Overrides of the hourly maxima per AI function, `function:count` ' +
      'comma-separated (`social-generate-content:120,generate-product:50`); ' +
      'functions not named keep their defaults (docs/api.md § AI functions).',
  )
  @IsOptional()
  @Matches(/^\s*[a-z-]+\s*:\s*\d{1,6}\s*(,\s*[a-z-]+\s*:\s*\d{1,6}\s*)*$/, {
    message: 'AI_HOURLY_LIMITS must look like "generate-product:100,social-generate-content:60"',
  })
  AI_HOURLY_LIMITS?: string;

  override problems(): string[] {
    try {
      hourlyLimits(this.AI_HOURLY_LIMITS);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  }
}

export const billingConfig = defineSettings('billing', '@app/billing', BillingConfig, {
  description: 'AI credits: what a new store gets, and how often each AI function may run.',
});
