import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, DbScopes } from '@app/core';
import { SessionRepository } from '../sessions/session.repository.js';
import { PasswordHasher } from './password-hasher.js';
import { UserRepository } from './user.repository.js';

/** Creates (or re-asserts) the admin account from ADMIN_EMAIL / ADMIN_PASSWORD at boot; admins cannot sign up. */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminBootstrapService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionRepository,
    private readonly scopes: DbScopes,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = this.config;
    if (!email || !password) return;
    await this.scopes.asSystem(async () => {
      const passwordHash = await this.hasher.hash(password);
      const existing = await this.users.findByEmail(email);
      if (existing && existing.role !== 'admin' && existing.role !== 'merchant') {
        this.logger.warn(`ADMIN_EMAIL ${email} belongs to a ${existing.role}; it was not made an admin`);
        return;
      }
      if (existing) {
        await this.users.setPassword(existing.id, passwordHash, 'admin');
        // Whoever held this account before (e.g. someone who signed up with the admin's e-mail) is signed out.
        if (existing.role !== 'admin') await this.sessions.revokeAllOf(existing.id);
      } else await this.users.insert({ email, passwordHash, role: 'admin', fullName: 'Administrator', provider: 'email', storeId: null });
      this.logger.log(`Admin account ready: ${email}`);
    });
  }
}
