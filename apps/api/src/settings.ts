import { aiConfig } from '@app/ai';
import { authConfig } from '@app/auth';
import { billingConfig } from '@app/billing';
import { commerceConfig } from '@app/commerce';
import { CORE_SETTINGS, loadSettings, type LoadSettingsOptions, type Settings } from '@app/core';
import { mailConfig } from '@app/mail';
import { socialConfig } from '@app/social';
import { webhooksConfig } from '@app/webhooks';

/**
 * Every lib's settings namespace, in the order docs/configuration.md lists them. A lib that reads a
 * new variable declares it in its own `*.config.ts`; a new lib's namespace is added here.
 */
export const SETTINGS_NAMESPACES = [
  ...CORE_SETTINGS,
  authConfig,
  mailConfig,
  commerceConfig,
  billingConfig,
  aiConfig,
  socialConfig,
  webhooksConfig,
] as const;

/** Every namespace read from `env` (the entry points pass process.env, `.env` added; the tests their own). */
export function loadAppSettings(
  env: Readonly<Record<string, string | undefined>>,
  options?: LoadSettingsOptions,
): Settings {
  return loadSettings(SETTINGS_NAMESPACES, env, options);
}
