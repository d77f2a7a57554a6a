import { Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AiImages1763800650000, AiModule, CoverFunction1763801100000 } from '@app/ai';
import { AuthFunctions1763801200000, AuthGuard, AuthModule, AuthTables1763800100000, RolesGuard } from '@app/auth';
import { BillingModule, CreditFunctions1763801000000, Credits1763800600000 } from '@app/billing';
import {
  CatalogCustomersOrders1763800300000,
  CommerceModule,
  CustomerSearch1763801500200,
  OrderStockFunctions1763801300000,
  OrdersByStatus1763801500300,
  RlsHardening1763800500000,
  StoresAndMembers1763800200000,
} from '@app/commerce';
import { AppConfig, AppThrottlerGuard, CoreModule, OutboxRelay } from '@app/core';
import { SandboxPostFunction1763801100100, Social1763800700000, SocialConnectFunctions1763800900000, SocialModule } from '@app/social';
import {
  DeliveryRetention1763801500100,
  MillisecondTimestamps1763800560000,
  ParkedDeliveries1763801470000,
  Webhooks1763800400000,
  WebhooksModule,
} from '@app/webhooks';

/** Every lib's migrations, run at start-up (prepareDatabase) in timestamp order, as the owner role. */
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
];

@Module({})
export class AppModule implements OnApplicationBootstrap {
  constructor(private readonly relay: OutboxRelay) {}

  /**
   * The root module's bootstrap hook runs after every other module's, so the command handlers are
   * registered by the time the relay's first sweep hands pending events to the webhook dispatch.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.relay.enabled) await this.relay.start();
  }

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot({ config }), AuthModule, CommerceModule, BillingModule, AiModule, SocialModule, WebhooksModule],
      // Global guards run in this order: who is calling, how often, in which role.
      providers: [
        { provide: APP_GUARD, useExisting: AuthGuard },
        { provide: APP_GUARD, useExisting: AppThrottlerGuard },
        { provide: APP_GUARD, useExisting: RolesGuard },
      ],
    };
  }
}
