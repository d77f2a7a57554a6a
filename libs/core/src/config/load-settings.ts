import { registerAs, type ConfigFactory } from '@nestjs/config';
import { developmentSecrets, type DevelopmentSecrets } from './development-secrets.js';
import { ConfigError, nodeEnvOf, type SettingsGroup, type SettingsNamespace } from './settings.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where development and test processes keep the secrets generated for them, relative to the working directory. */
export const DEVELOPMENT_SECRETS_FILE = '.storefront/development-secrets.json';

/** Every namespace's validated settings, as `loadSettings` read them. */
export class Settings {
  constructor(
    private readonly values: ReadonlyMap<string, SettingsGroup>,
    /** Set when a secret came from the development secrets file, not the environment. */
    readonly developmentSecretsFile?: string,
  ) {}

  get<T extends SettingsGroup>(namespace: SettingsNamespace<T>): T {
    const value = this.values.get(namespace.namespace);
    if (!value)
      throw new Error(`The settings "${namespace.namespace}" were not loaded (add them to the app's namespaces)`);
    return value as T;
  }

  /** The namespaces as @nestjs/config factories, each answering its validated value under its KEY. */
  factories(): ConfigFactory[] {
    return [...this.values].map(([namespace, value]) => registerAs(namespace, () => value));
  }
}

export interface LoadSettingsOptions {
  /** The development secrets file (default DEVELOPMENT_SECRETS_FILE in the working directory). */
  secretsFile?: string;
}

/**
 * Reads and validates every namespace from `env`; throws one ConfigError naming every bad or missing
 * variable of every lib. A development or test process without the secrets marked `developmentSecret`
 * gets the installation's generated ones (created on first use).
 */
// `any`: a list mixes the namespaces of every lib (SettingsNamespace<T> is invariant in T).
export function loadSettings(
  namespaces: readonly SettingsNamespace<any>[],
  env: Env,
  options: LoadSettingsOptions = {},
): Settings {
  const seen = new Set<string>();
  for (const namespace of namespaces) {
    if (seen.has(namespace.namespace)) throw new Error(`Two settings namespaces are called "${namespace.namespace}"`);
    seen.add(namespace.namespace);
  }
  const nodeEnv = nodeEnvOf(env);
  const values = new Map<string, SettingsGroup>();
  const problems: string[] = [];
  for (const namespace of namespaces) {
    const read = namespace.read(env, nodeEnv);
    values.set(namespace.namespace, read.value);
    problems.push(...read.problems);
  }
  if (nodeEnv === 'production') {
    // One line naming every missing secret, so a deployment is fixed in one go.
    const missing = namespaces.flatMap((namespace) => namespace.requiredInProduction()).filter((name) => !env[name]);
    if (missing.length > 0)
      problems.push(`${missing.sort().join(', ')} must be set (NODE_ENV is not development or test)`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  let developmentSecretsFile: string | undefined;
  if (nodeEnv !== 'production') {
    const wanted = namespaces.flatMap((namespace) =>
      namespace
        .developmentSecrets()
        .map((secret) => ({ ...secret, value: values.get(namespace.namespace) as unknown as Record<string, unknown> }))
        .filter(({ value, property }) => value[property] === undefined),
    );
    if (wanted.length > 0) {
      const file = options.secretsFile ?? DEVELOPMENT_SECRETS_FILE;
      let secrets: DevelopmentSecrets;
      try {
        secrets = developmentSecrets(file);
      } catch (error) {
        const names = [...new Set(wanted.map(({ property }) => property))].sort().join(', ');
        throw new ConfigError([`${names}: unset, and ${(error as Error).message}`]);
      }
      for (const { value, property, secret } of wanted) value[property] = secrets[secret];
      developmentSecretsFile = file;
    }
  }
  return new Settings(values, developmentSecretsFile);
}
