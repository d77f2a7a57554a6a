import pg from 'pg';
import type { DatabaseConfig } from './database.config.js';
import { ensureDatabase, StartupError } from './ensure-database.js';
import { OWNER_ROLE, REQUEST_ROLE, SYSTEM_ROLE } from './roles.js';

// The server's side of the start-up, through the administrative login and before the migration lock is taken
// (prepare-database.ts): the database itself, and the cluster-wide roles and the application logins.

/** A short-lived administrative connection of the start-up. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    application_name: 'storefront-start-up',
  });
  await client.connect();
  return client;
}

/** The user name and password of a connection URL. */
export function loginOf(url: string): { name: string; password: string } {
  const parsed = new URL(url);
  return { name: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
}

async function roleExists(client: pg.Client, name: string): Promise<boolean> {
  return (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount === 1;
}

/**
 * The roles, cluster-wide (once for every database on the server, under a lock in the maintenance
 * database). A login the operator made is checked, not changed, except its membership.
 */
async function ensureRoles(client: pg.Client, config: DatabaseConfig): Promise<void> {
  const [me] = (
    await client.query(
      `SELECT current_user AS name, rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user`,
    )
  ).rows;
  const mayCreate: boolean = me.rolsuper || me.rolcreaterole;
  const missing = (role: string) =>
    new StartupError(
      `Database role ${role} does not exist and ${me.name} (DATABASE_URL) may not ` +
        `create roles: run the statements of docs/security.md once, as an administrator.`,
    );
  const groups: [string, string][] = [
    [OWNER_ROLE, 'NOLOGIN NOINHERIT NOBYPASSRLS'],
    [REQUEST_ROLE, 'NOLOGIN NOBYPASSRLS'],
    [SYSTEM_ROLE, 'NOLOGIN NOBYPASSRLS'],
  ];
  for (const [role, attributes] of groups) {
    if (await roleExists(client, role)) continue;
    if (!mayCreate) throw missing(role);
    await client.query(`CREATE ROLE ${role} ${attributes}`);
  }
  if (mayCreate) {
    // The owner hands the definer functions to the system role (ALTER … OWNER needs membership); NOINHERIT
    // keeps the system's rows out of the owner's reach.
    await client.query(`ALTER ROLE ${OWNER_ROLE} NOINHERIT`);
    await client.query(`GRANT ${SYSTEM_ROLE} TO ${OWNER_ROLE}`);
    if (!me.rolsuper) await client.query(`GRANT ${OWNER_ROLE} TO ${pg.escapeIdentifier(me.name)}`);
  }
  const logins: [string, string, 'request' | 'service'][] = [
    [config.requestDatabaseUrl, REQUEST_ROLE, 'request'],
    [config.serviceDatabaseUrl, SYSTEM_ROLE, 'service'],
  ];
  for (const [url, group, label] of logins) {
    const login = loginOf(url);
    const setting = label === 'request' ? 'DATABASE_REQUEST_URL' : 'DATABASE_SERVICE_URL';
    if (login.name === me.name || [OWNER_ROLE, REQUEST_ROLE, SYSTEM_ROLE].includes(login.name)) {
      throw new StartupError(`${setting} must log in as a role of its own, not as ${login.name}.`);
    }
    const password = login.password ? ` PASSWORD ${client.escapeLiteral(login.password)}` : '';
    if (!(await roleExists(client, login.name))) {
      if (!mayCreate) throw missing(login.name);
      await client.query(
        `CREATE ROLE ${pg.escapeIdentifier(login.name)} LOGIN INHERIT ` +
          `NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE${password}`,
      );
    } else if (mayCreate && password) {
      await client.query(`ALTER ROLE ${pg.escapeIdentifier(login.name)}${password}`);
    }
    const [role] = (
      await client.query(
        `SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb,
                pg_has_role(rolname, $2, 'MEMBER') AS in_group,
                pg_has_role(rolname, '${OWNER_ROLE}', 'MEMBER') AS in_owner,
                pg_has_role(rolname, $3, 'MEMBER') AS in_other
           FROM pg_roles WHERE rolname = $1`,
        [login.name, group, group === REQUEST_ROLE ? SYSTEM_ROLE : REQUEST_ROLE],
      )
    ).rows;
    // BYPASSRLS on the request login: only a test may ask for it (UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS under
    // NODE_ENV=test).
    const bypassAllowed = label === 'request' && config.requestLoginMayBypassRls;
    if (
      role.rolsuper ||
      (role.rolbypassrls && !bypassAllowed) ||
      role.rolcreaterole ||
      role.rolcreatedb ||
      role.in_owner ||
      role.in_other
    ) {
      throw new StartupError(
        `${setting} logs in as ${login.name}, which may do more than ${label}s need (superuser, ` +
          `BYPASSRLS, CREATEROLE, CREATEDB or another storefront role): give it a role of its own.`,
      );
    }
    if (!role.in_group) {
      if (!mayCreate) throw missing(`membership of ${login.name} in ${group}`);
      await client.query(`GRANT ${group} TO ${pg.escapeIdentifier(login.name)}`);
    }
    // A role may set its own session defaults (ALTER ROLE … SET): whatever a request set there (a
    // read-only default, a 1 ms statement timeout) is undone at every start.
    if (mayCreate) await client.query(`ALTER ROLE ${pg.escapeIdentifier(login.name)} RESET ALL`);
  }
}

/** The database and the cluster-wide roles (with their grants), through the administrative login. */
export async function prepareServer(config: DatabaseConfig): Promise<void> {
  const ownerUrl = config.ownerDatabaseUrl;
  await ensureDatabase(ownerUrl);
  const maintenance = new URL(ownerUrl);
  maintenance.pathname = '/postgres';
  const cluster = await connect(maintenance.toString());
  try {
    await cluster.query(`SET lock_timeout = '120s'`);
    await cluster.query(`SELECT pg_advisory_lock(hashtext('storefront:roles'))`);
    await ensureRoles(cluster, config);
  } catch (error) {
    throw error instanceof StartupError
      ? error
      : new StartupError(`Database roles could not be prepared: ${(error as Error).message}`);
  } finally {
    await cluster.end().catch(() => undefined);
  }
}
