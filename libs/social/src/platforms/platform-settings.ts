import { isURL } from 'class-validator';
import type { TextSetting } from '@app/core';
import type { SocialConfig } from '../social.config.js';

/**
 * A platform's settings (client ids and secrets, the URLs of its APIs), declared in its folder, so
 * that adding a platform touches no shared configuration. The social settings read and check them
 * with their own (libs/social/src/social.config.ts): a bad value stops the start with one line, like
 * any other setting, and docs/configuration.md and .env.example list them.
 */
export type SettingSpec = TextSetting;

/** A text setting that may stay unset (a client id or secret). */
export const optionalText = (description: string): SettingSpec => ({ description, check: () => null });

/** An absolute URL (`https://…`), with a default. */
export const urlSetting = (defaultValue: string, description: string): SettingSpec & { default: string } => ({
  description,
  default: defaultValue,
  check: (value, name) =>
    isURL(value, { require_tld: false, require_protocol: true }) ? null : `${name} must be a URL address`,
});

/** A value matching `pattern`, with a default. */
export const matching = (
  pattern: RegExp,
  refusal: string,
  defaultValue: string,
  description: string,
): SettingSpec & { default: string } => ({
  description,
  default: defaultValue,
  check: (value) => (pattern.test(value) ? null : refusal),
});

export type SettingsSpec = Readonly<Record<string, SettingSpec>>;

/** The values of a spec: a string for settings with a default, else possibly undefined. */
export type SettingsOf<S extends SettingsSpec> = {
  readonly [K in keyof S]: S[K] extends { default: string } ? string : string | undefined;
};

/** The values of `spec`, as the social settings read them (defaults applied; empty values count as unset). */
export function readSettings<S extends SettingsSpec>(spec: S, social: SocialConfig): SettingsOf<S> {
  return Object.fromEntries(
    Object.keys(spec).map((name) => {
      if (!(name in social.textSettings))
        throw new Error(`${name} is not a setting of a registered social platform (platforms/registry.ts)`);
      return [name, social.textSettings[name]];
    }),
  ) as unknown as SettingsOf<S>;
}
