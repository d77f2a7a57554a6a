import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { AccountMail } from './accounts/account-mail.js';
import { AccountService } from './accounts/account.service.js';
import { authConfig } from './auth.config.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { GoogleSignInService } from './google/google-sign-in.service.js';
import { FlowStates } from './pkce/flow-states.js';
import { PkceGrant } from './pkce/pkce-grant.service.js';
import { JwtAuthGuard } from './guards/jwt-auth.guard.js';
import { ApiKeyStrategy } from './passport/api-key.strategy.js';
import { StoreKeyFailures } from './passport/store-key-failures.js';
import { StoreKeyStrategy } from './passport/store-key.strategy.js';
import { JwtStrategy } from './passport/jwt.strategy.js';
import { RolesGuard } from './guards/roles.guard.js';
import { AccessTokenService, accessTokenJwtOptions } from './sessions/access-token.service.js';
import { SignInLimitInterceptor } from './sign-in-limits/sign-in-limit.interceptor.js';
import { SignInLimiter } from './sign-in-limits/sign-in-limiter.js';
import { AccountLimits } from './sign-in-limits/account-limits.js';
import { RedisWindows } from './sign-in-limits/redis-windows.js';
import { SessionOpener } from './sessions/session-opener.js';
import { AuthStore } from './sessions/auth-store.js';
import { RefreshTokenChain } from './sessions/refresh-token-chain.js';
import { SessionRepository } from './sessions/session.repository.js';
import { AdminBootstrapService } from './users/admin-bootstrap.service.js';
import { PasswordHasher } from './users/password-hasher.js';
import { UserRepository } from './users/user.repository.js';

/**
 * /auth/v1 (sign-up, sign-in, passwordless and PKCE, account recovery and changes), access tokens,
 * and who calls: the passport strategies (`jwt` for users' access tokens,
 * `api-key` for the public key), the global JwtAuthGuard that runs them, and RolesGuard for @Roles.
 */
@Module({
  imports: [PassportModule, JwtModule.registerAsync({ inject: [authConfig.KEY], useFactory: accessTokenJwtOptions })],
  controllers: [AuthController],
  providers: [
    AuthService,
    AccountService,
    AccountMail,
    SessionOpener,
    AccessTokenService,
    SessionRepository,
    AuthStore,
    RefreshTokenChain,
    UserRepository,
    PasswordHasher,
    GoogleSignInService,
    FlowStates,
    PkceGrant,
    RedisWindows,
    SignInLimiter,
    AccountLimits,
    SignInLimitInterceptor,
    AdminBootstrapService,
    JwtStrategy,
    ApiKeyStrategy,
    StoreKeyStrategy,
    StoreKeyFailures,
    JwtAuthGuard,
    RolesGuard,
  ],
  exports: [JwtAuthGuard, RolesGuard, AccessTokenService, UserRepository],
})
export class AuthModule {}
