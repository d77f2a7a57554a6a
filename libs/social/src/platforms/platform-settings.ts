import { isURL } from 'class-validator';
import { ConfigError, settingProblem, type AppConfig } from '@app/core';

/**
 * A platform's settings (client ids and secrets, the URLs of its APIs), declared in its folder and
 * read from the process environment (`AppConfig.environment`), so that adding a platform touches
 * no shared configuration. Problems are reported as AppConfig's are: one line each, at start-up.
 */

export interface SettingSpec {
  /** What it is, for docs/platforms.md. */
  readonly description: string;
  /** The value when unset; absent: the setting is optional and may stay unset. */
  readonly default?: string;
  /** Why a value is refused, or null when it is fine. */
  check(value: string, name: string): string | null;
}

/** A text setting that may stay unset (a client id or secret). */
export const optionalText = (description: string): SettingSpec => ({ description, check: () => null });

/** An absolute URL (`https://…`), with a default. */
export const urlSetting = (defaultValue: string, description: string): SettingSpec & { default: string } => ({
  description,
  default: defaultValue,
  check: (value, name) => (isURL(value, { require_tld: false, require_protocol: true }) ? null : `${name} must be a URL address`),
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

/** What is wrong with the environment's values of `spec`: one line each. */
export function settingsProblems(spec: SettingsSpec, config: AppConfig): string[] {
  return Object.entries(spec).flatMap(([name, setting]) => {
    const raw = config.environment[name];
    const reason = raw ? setting.check(raw, name) : null;
    return reason === null ? [] : [settingProblem(name, raw, reason)];
  });
}

/** The values of `spec` in the environment (empty values count as unset); a ConfigError when one is refused. */
export function readSettings<S extends SettingsSpec>(spec: S, config: AppConfig): SettingsOf<S> {
  const problems = settingsProblems(spec, config);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.fromEntries(
    Object.entries(spec).map(([name, setting]) => [name, config.environment[name] || setting.default]),
  ) as unknown as SettingsOf<S>;
}
