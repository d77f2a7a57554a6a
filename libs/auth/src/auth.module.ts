import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '@app/core';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { GoogleSignInService } from './google/google-sign-in.service.js';
import { AuthGuard } from './guards/auth.guard.js';
import { RolesGuard } from './guards/roles.guard.js';
import { AccessTokenService, accessTokenJwtOptions } from './sessions/access-token.service.js';
import { SignInLimitInterceptor } from './sign-in-limits/sign-in-limit.interceptor.js';
import { SignInLimiter } from './sign-in-limits/sign-in-limiter.js';
import { AuthStore } from './sessions/auth-store.js';
import { SessionRepository } from './sessions/session.repository.js';
import { AdminBootstrapService } from './users/admin-bootstrap.service.js';
import { PasswordHasher } from './users/password-hasher.js';
import { UserRepository } from './users/user.repository.js';

/** /auth/v1, access tokens, and the guards that identify callers (AuthGuard) and check roles (RolesGuard). */
@Module({
  imports: [JwtModule.registerAsync({ inject: [AppConfig], useFactory: accessTokenJwtOptions })],
  controllers: [AuthController],
  providers: [
    AuthService,
    AccessTokenService,
    SessionRepository,
    AuthStore,
    UserRepository,
    PasswordHasher,
    GoogleSignInService,
    SignInLimiter,
    SignInLimitInterceptor,
    AdminBootstrapService,
    AuthGuard,
    RolesGuard,
  ],
  exports: [AuthGuard, RolesGuard, AccessTokenService, UserRepository],
})
export class AuthModule {}
