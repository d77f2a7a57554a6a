import { registerAs, type ConfigFactoryKeyHost } from '@nestjs/config';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import type { DevelopmentSecrets } from './development-secrets.js';

/**
 * How the service reads its settings. Each lib declares the environment variables it reads in a class
 * of its own (`libs/<lib>/src/**\/<name>.config.ts`): one property per variable, validated by
 * class-validator, described by `@Setting`, registered under a namespace with `defineSettings`
 * (@nestjs/config's `registerAs`). The app lists the namespaces (apps/api/src/settings.ts) and
 * `loadSettings` (load-settings.ts) reads them all at once, so a bad start names every problem of every lib.
 * docs/configuration.md and .env.example are generated from the same classes.
 */

export type NodeEnv = 'development' | 'test' | 'production';

const NODE_ENVS: readonly NodeEnv[] = ['development', 'test', 'production'];

/** NODE_ENV as the loader reads it: unset (or unknown, which the `app` settings refuse) counts as production. */
export function nodeEnvOf(env: Readonly<Record<string, string | undefined>>): NodeEnv {
  return NODE_ENVS.find((name) => name === env.NODE_ENV) ?? 'production';
}

/** What the reference says of a setting beside its description, and the loader's rules beside class-validator's. */
export interface SettingOptions {
  /**
   * The default as the reference shows it, when it is not the property's initial value (derived, or different in
   * production).
   */
  default?: string;
  /** A production process (NODE_ENV neither development nor test, unset included) must be given it. */
  requiredInProduction?: boolean;
  /** Generated once per installation for a development or test process that lacks it (development-secrets.ts). */
  developmentSecret?: keyof DevelopmentSecrets;
}

/** One variable as the reference describes it. */
export interface SettingDoc {
  readonly name: string;
  readonly description: string;
  /** The default as the reference shows it (`unset` when there is none). */
  readonly default: string;
  /** The default as a value for .env, when it is one (not derived, not different in production). */
  readonly value?: string;
  readonly requiredInProduction: boolean;
  /** The namespace (`mail`) and the lib that reads it (`@app/mail`). */
  readonly namespace: string;
  readonly lib: string;
}

interface DeclaredSetting extends SettingOptions {
  readonly property: string;
  readonly description: string;
}

const declared = new WeakMap<Function, DeclaredSetting[]>();

/**
 * Declares a property of a settings class as an environment variable of the same name: `description`
 * is its line in docs/configuration.md and .env.example. Its validation is class-validator's decorators.
 */
export function Setting(description: string, options: SettingOptions = {}): PropertyDecorator {
  return (target, property) => {
    const settings = declared.get(target.constructor) ?? [];
    settings.push({ property: String(property), description, ...options });
    declared.set(target.constructor, settings);
  };
}

/**
 * A setting read as plain text and checked by a function rather than by decorators: the way each social
 * platform declares its own in its folder (libs/social/src/platforms/platform-settings.ts).
 */
export interface TextSetting {
  readonly description: string;
  /** The value when unset; absent: the setting is optional and may stay unset. */
  readonly default?: string;
  /** Why a value is refused, or null when it is fine. */
  check(value: string, name: string): string | null;
}

/** Base of every settings class: what the loader tells a namespace about the process beside its own variables. */
export abstract class SettingsGroup {
  /** NODE_ENV, read by the `app` namespace: for defaults that differ in production. */
  nodeEnv: NodeEnv = 'production';

  /** The values of the namespace's text settings (`TextSetting`), defaults applied; empty values count as unset. */
  textSettings: Readonly<Record<string, string | undefined>> = {};

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }

  /**
   * What the decorators cannot see, one line each (`settingProblem`): settings that go together, values
   * refused in production. Runs after the decorators found nothing wrong.
   */
  problems(): string[] {
    return [];
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`,
    );
  }
}

/** One line of a ConfigError: the variable, its value as given (shortened) or `unset`, and what is wrong. */
export function settingProblem(name: string, raw: string | undefined, reasons: string): string {
  const shown = raw === undefined ? 'unset' : JSON.stringify(raw.length > 60 ? `${raw.slice(0, 57)}...` : raw);
  return `${name} (${shown}): ${reasons}`;
}

type Env = Readonly<Record<string, string | undefined>>;

export interface SettingsNamespaceOptions {
  /** What the namespace is about, for the reference (one sentence). */
  description?: string;
  /** The lib's text settings (the social platforms'), keyed by variable name. */
  textSettings?: () => Readonly<Record<string, TextSetting>>;
}

/**
 * A lib's settings: an @nestjs/config factory (`registerAs`) whose `KEY` injects the validated class
 * (`@Inject(mailConfig.KEY) mail: MailConfig`). Called by @nestjs/config it reads process.env; the
 * app registers the values `loadSettings` read instead (ConfigModule.forRoot).
 */
export type SettingsNamespace<T extends SettingsGroup = SettingsGroup> = (() => T) &
  ConfigFactoryKeyHost<T> & {
    readonly namespace: string;
    readonly lib: string;
    readonly description: string;
    readonly settingsClass: new () => T;
    /** The namespace's variables in `env`, and what is wrong with them (one line each). */
    read(env: Env, nodeEnv?: NodeEnv): { value: T; problems: string[] };
    /** The namespace's settings from an env-like record (tests); a ConfigError when one is refused. */
    from(env: Env): T;
    /** Its variables as the reference describes them, in declaration order. */
    docs(): SettingDoc[];
    /** Its variables that a production process must be given. */
    requiredInProduction(): string[];
    /** Its variables generated for development and test processes, by property. */
    developmentSecrets(): ReadonlyArray<{ property: string; secret: keyof DevelopmentSecrets }>;
  };

function declaredSettings(settingsClass: Function): DeclaredSetting[] {
  const settings = declared.get(settingsClass);
  if (!settings?.length) throw new Error(`${settingsClass.name} declares no @Setting`);
  return settings;
}

function flatten(errors: ValidationError[], env: Env): string[] {
  return errors.flatMap((error) =>
    error.constraints
      ? [settingProblem(error.property, env[error.property], Object.values(error.constraints).join('; '))]
      : [],
  );
}

const asText = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));

function defaultOf(setting: DeclaredSetting, initial: unknown): { default: string; value?: string } {
  if (setting.default !== undefined) {
    // A default written as one value (`30d`) is also the value .env.example shows.
    const single = /^`([^`]*)`$/.exec(setting.default);
    return single ? { default: setting.default, value: single[1] } : { default: setting.default };
  }
  return initial === undefined ? { default: 'unset' } : { default: asText(initial), value: asText(initial) };
}

/** Registers `settingsClass` as the namespace `namespace` of the lib `lib` (`@app/mail`). */
export function defineSettings<T extends SettingsGroup>(
  namespace: string,
  lib: string,
  settingsClass: new () => T,
  options: SettingsNamespaceOptions = {},
): SettingsNamespace<T> {
  const textSettings = () => options.textSettings?.() ?? {};

  const read = (env: Env, nodeEnv: NodeEnv = nodeEnvOf(env)) => {
    const settings = declaredSettings(settingsClass);
    const known = new Set(settings.map((setting) => setting.property));
    for (const meta of getMetadataStorage().getTargetValidationMetadatas(settingsClass, '', true, false)) {
      if (!known.has(meta.propertyName))
        throw new Error(`${settingsClass.name}.${meta.propertyName} is validated but has no @Setting`);
    }
    // Empty values count as unset, as in a .env file's `NAME=`.
    const input = Object.fromEntries(Object.entries(env).filter(([key, value]) => value && known.has(key)));
    const value = plainToInstance(settingsClass, input);
    value.nodeEnv = nodeEnv;
    const problems = flatten(validateSync(value, { skipMissingProperties: false }), env);
    const text: Record<string, string | undefined> = {};
    for (const [name, setting] of Object.entries(textSettings())) {
      const raw = env[name] || undefined;
      const reason = raw === undefined ? null : setting.check(raw, name);
      if (reason !== null) problems.push(settingProblem(name, raw, reason));
      text[name] = raw ?? setting.default;
    }
    value.textSettings = Object.freeze(text);
    if (problems.length === 0) problems.push(...value.problems());
    return { value, problems };
  };

  const from = (env: Env): T => {
    const { value, problems } = read(env);
    if (problems.length > 0) throw new ConfigError(problems);
    return value;
  };

  const docs = (): SettingDoc[] => {
    const defaults = new settingsClass() as unknown as Record<string, unknown>;
    const declaredDocs = declaredSettings(settingsClass).map((setting) => ({
      name: setting.property,
      description: setting.description,
      ...defaultOf(setting, defaults[setting.property]),
      requiredInProduction: setting.requiredInProduction === true,
      namespace,
      lib,
    }));
    const textDocs = Object.entries(textSettings()).map(([name, setting]) => ({
      name,
      description: setting.description,
      ...(setting.default === undefined ? { default: 'unset' } : { default: setting.default, value: setting.default }),
      requiredInProduction: false,
      namespace,
      lib,
    }));
    return [...declaredDocs, ...textDocs];
  };

  const factory = registerAs(namespace, () => from(process.env));
  return Object.assign(factory, {
    namespace,
    lib,
    description: options.description ?? '',
    settingsClass,
    read,
    from,
    docs,
    requiredInProduction: () =>
      declaredSettings(settingsClass).flatMap((setting) => (setting.requiredInProduction ? [setting.property] : [])),
    developmentSecrets: () =>
      declaredSettings(settingsClass).flatMap((setting) =>
        setting.developmentSecret ? [{ property: setting.property, secret: setting.developmentSecret }] : [],
      ),
  });
}
