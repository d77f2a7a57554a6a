import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { httpConfig, SafeHttpClient, StoreAccessModule } from '@app/core';
import { NotificationsModule } from '@app/notifications';
import { AccountTokens } from './accounts/account-tokens.js';
import { SocialConnectController } from './connect/social-connect.controller.js';
import { SocialConnectService } from './connect/social-connect.service.js';
import { buildPlatformRegistry } from './platforms/registry.js';
import { SOCIAL_PLATFORMS_REGISTRY } from './platforms/social-platform.js';
import { SocialPlatformRows } from './platforms/social-platform.rows.js';
import { PostPublisher } from './publishing/post-publisher.js';
import { PostQueue, SOCIAL_POST_QUEUE } from './publishing/post-queue.js';
import { ScheduledPostWorker } from './publishing/scheduled-post.worker.js';
import { SocialPublishController } from './publishing/social-publish.controller.js';
import { SocialPublishService } from './publishing/social-publish.service.js';
import { SocialSandboxController } from './sandbox/social-sandbox.controller.js';
import { socialConfig } from './social.config.js';
import { SocialAccountRepository } from './accounts/social-account.repository.js';
import { SocialRepository } from './social.repository.js';

/** Social connect (OAuth + PKCE), connected accounts, publishing now, scheduling and cancelling. */
@Module({
  imports: [StoreAccessModule, NotificationsModule, BullModule.registerQueue({ name: SOCIAL_POST_QUEUE })],
  controllers: [SocialConnectController, SocialPublishController, SocialSandboxController],
  providers: [
    {
      provide: SOCIAL_PLATFORMS_REGISTRY,
      inject: [socialConfig.KEY, httpConfig.KEY, SafeHttpClient],
      useFactory: buildPlatformRegistry,
    },
    SocialPlatformRows,
    SocialRepository,
    SocialAccountRepository,
    AccountTokens,
    SocialConnectService,
    PostPublisher,
    PostQueue,
    ScheduledPostWorker,
    SocialPublishService,
  ],
  exports: [ScheduledPostWorker],
})
export class SocialModule {}
