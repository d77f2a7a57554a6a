import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { StartupError, SystemDb } from '@app/core';
import { SessionRepository } from '../sessions/session.repository.js';
import { PasswordHasher } from './password-hasher.js';
import type { UserRow } from './user.js';
import { UserRepository } from './user.repository.js';
import { authConfig, type AuthConfig } from '../auth.config.js';

/**
 * Makes ADMIN_EMAIL / ADMIN_PASSWORD the one admin account at boot; admins cannot sign up.
 * - no account with that e-mail: it is created;
 * - the admin account, with another password: the new password is set and its sessions end;
 * - any other account (merchant, team member, customer): the start stops, since promoting it would
 *   hand the platform to whoever registered the e-mail first;
 * - every other admin (the one of an earlier ADMIN_EMAIL) becomes a merchant and its sessions end.
 * With ADMIN_EMAIL unset nothing is checked or changed: existing admins stay admins.
 */
@Injectable()
export class AdminBootstrapService implements OnModuleInit {
  private readonly logger = new Logger(AdminBootstrapService.name);

  constructor(
    private readonly system: SystemDb,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionRepository,
  ) {}

  // At module init (the migrations have run), before any bootstrap hook starts queue workers or
  // sweeps: a start refused here has nothing running yet that closing the app could cut short.
  async onModuleInit(): Promise<void> {
    const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = this.config;
    if (!email || !password) return;
    await this.system.run(async () => {
      const admin = await this.adminAccount(email, password);
      for (const id of await this.users.demoteAdminsExcept(email)) {
        await this.sessions.revokeAllOf(id);
        this.logger.warn(`Former admin account ${id} is a merchant now (ADMIN_EMAIL names another account)`);
      }
      this.logger.log(`Admin account ready: ${admin.email}`);
    });
  }

  /** The admin account of ADMIN_EMAIL, created or brought to ADMIN_PASSWORD. */
  private async adminAccount(email: string, password: string): Promise<UserRow> {
    let existing = await this.users.findByEmail(email);
    if (!existing) {
      const created = await this.users.insert({
        email,
        passwordHash: await this.hasher.hash(password),
        role: 'admin',
        fullName: 'Administrator',
        provider: 'email',
        storeId: null,
      });
      if (created !== 'email_taken' && created !== 'unknown_store') return created;
      // Another process of this deployment created it a moment ago (or someone signed up with it).
      existing = await this.users.findByEmail(email);
      if (!existing)
        throw new StartupError(`ADMIN_EMAIL ${email}: the admin account could not be created; start again`);
    }
    if (existing.role !== 'admin') {
      throw new StartupError(
        `ADMIN_EMAIL ${email} belongs to an existing ${existing.role} ` +
          `account; choose another e-mail or remove that account`,
      );
    }
    if (!(await this.hasher.verify(existing.password_hash, password))) {
      // A new ADMIN_PASSWORD is a rotation: whoever knew the old one is signed out.
      await this.users.setPassword(existing.id, await this.hasher.hash(password), 'admin');
      await this.sessions.revokeAllOf(existing.id);
      this.logger.log(`Admin password changed; the admin's sessions were ended`);
    }
    return existing;
  }
}
