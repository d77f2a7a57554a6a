import { Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AI_DATABASE, AiModule } from '@app/ai';
import { AUTH_DATABASE, AuthModule, JwtAuthGuard, RolesGuard } from '@app/auth';
import { BILLING_DATABASE, BillingModule } from '@app/billing';
import { COMMERCE_DATABASE, CommerceModule } from '@app/commerce';
import { AppThrottlerGuard, CoreModule, OutboxRelay, type Settings } from '@app/core';
import { MAIL_DATABASE, MailModule } from '@app/mail';
import { SOCIAL_DATABASE, SocialModule } from '@app/social';
import { WEBHOOKS_DATABASE, WebhooksModule } from '@app/webhooks';
import { NOTIFICATIONS_DATABASE, NotificationsModule } from '@app/notifications';
import { QueueDashboard, QueueDashboardController } from './queue-dashboard.js';

/**
 * What every lib owns in the database, in the order their sql/ files are applied (after core's):
 * migrations (tables, run in timestamp order) and sql/ files (the current state of their functions,
 * triggers, policies and grants). Used at start-up (prepareDatabase), by the migrations CLI
 * (data-source.ts) and by `npm run schema`. A new lib with tables adds its own here.
 */
export const LIB_DATABASES = [
  AUTH_DATABASE,
  COMMERCE_DATABASE,
  WEBHOOKS_DATABASE,
  NOTIFICATIONS_DATABASE,
  BILLING_DATABASE,
  AI_DATABASE,
  SOCIAL_DATABASE,
  MAIL_DATABASE,
];

@Module({})
export class AppModule implements OnApplicationBootstrap {
  constructor(private readonly relay: OutboxRelay) {}

  /**
   * The root module's bootstrap hook runs after every other module's, so the sagas and command handlers
   * are registered by the time the relay's first sweep publishes pending events on the event bus.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.relay.enabled) await this.relay.start();
  }

  static forRoot(settings: Settings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot({ settings }),
        MailModule,
        AuthModule,
        CommerceModule,
        BillingModule,
        AiModule,
        NotificationsModule,
        SocialModule,
        WebhooksModule,
      ],
      controllers: [QueueDashboardController],
      // Global guards run in this order: who is calling, how often, in which role.
      providers: [
        { provide: APP_GUARD, useExisting: JwtAuthGuard },
        { provide: APP_GUARD, useExisting: AppThrottlerGuard },
        { provide: APP_GUARD, useExisting: RolesGuard },
        QueueDashboard,
      ],
    };
  }
}
