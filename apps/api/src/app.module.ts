import { Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AiImages1763800650000, AiModule, CoverFunction1763801100000 } from '@app/ai';
import {
  AccountRecovery1763801720100,
  PkceAndMagicLinks1763802000000,
  AuthFunctions1763801200000,
  AuthModule,
  AuthTables1763800100000,
  JwtAuthGuard,
  RefreshReuseInterval1763802100000,
  RolesGuard,
} from '@app/auth';
import {
  AiFunctionPrices1763801600100,
  BillingModule,
  CreditFunctions1763801000000,
  Credits1763800600000,
  StoreKeyCredits1763802600000,
} from '@app/billing';
import {
  CatalogCustomersOrders1763800300000,
  CommerceModule,
  CustomerSearch1763801500200,
  InvitationLinks1763801720050,
  OrderStockFunctions1763801300000,
  OrdersByStatus1763801500300,
  RlsHardening1763800500000,
  StoreApiKeys1763802300000,
  IdempotencyCallerPolicy1763802700000,
  StoresAndMembers1763800200000,
} from '@app/commerce';
import { AppThrottlerGuard, CoreModule, OutboxRelay, type Settings } from '@app/core';
import { MagicLinkMail1763802000100, Mail1763801720000, MailModule } from '@app/mail';
import { NotificationsModule } from '@app/notifications';
import {
  SandboxPostFunction1763801100100,
  Social1763800700000,
  SocialConnectFunctions1763800900000,
  SocialModule,
  SocialPlatformsTable1763801600200,
  StoreKeyPosts1763802600100,
} from '@app/social';
import {
  DeliveryRetention1763801500100,
  MillisecondTimestamps1763800560000,
  ParkedDeliveries1763801470000,
  SkippedDeliveries1763802400000,
  StoreEventReads1763802400100,
  Webhooks1763800400000,
  WebhooksModule,
} from '@app/webhooks';
import { QueueDashboard, QueueDashboardController } from './queue-dashboard.js';

/**
 * Every lib's migrations, run in timestamp order as the owner role: at start-up (prepareDatabase) and
 * by the migrations CLI (data-source.ts). A new migration is exported by its lib and added here.
 */
export const MIGRATIONS = [
  AuthTables1763800100000,
  StoresAndMembers1763800200000,
  CatalogCustomersOrders1763800300000,
  Webhooks1763800400000,
  RlsHardening1763800500000,
  MillisecondTimestamps1763800560000,
  Credits1763800600000,
  AiImages1763800650000,
  Social1763800700000,
  SocialConnectFunctions1763800900000,
  CreditFunctions1763801000000,
  CoverFunction1763801100000,
  SandboxPostFunction1763801100100,
  AuthFunctions1763801200000,
  OrderStockFunctions1763801300000,
  ParkedDeliveries1763801470000,
  DeliveryRetention1763801500100,
  CustomerSearch1763801500200,
  OrdersByStatus1763801500300,
  AiFunctionPrices1763801600100,
  SocialPlatformsTable1763801600200,
  Mail1763801720000,
  InvitationLinks1763801720050,
  AccountRecovery1763801720100,
  PkceAndMagicLinks1763802000000,
  MagicLinkMail1763802000100,
  RefreshReuseInterval1763802100000,
  StoreApiKeys1763802300000,
  SkippedDeliveries1763802400000,
  StoreEventReads1763802400100,
  StoreKeyCredits1763802600000,
  StoreKeyPosts1763802600100,
  IdempotencyCallerPolicy1763802700000,
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
