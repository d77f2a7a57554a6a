import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/commerce';
import { CreditsController } from './credits.controller.js';
import { CreditsService } from './credits.service.js';
import { OpenCreditAccountHandler } from './open-credit-account.handler.js';

/** AI credits: the ledger, costs, hourly maxima, charge and refund, welcome and admin grants. */
@Module({
  imports: [StoreAccessModule],
  controllers: [CreditsController],
  providers: [CreditsService, OpenCreditAccountHandler],
  exports: [CreditsService],
})
export class BillingModule {}
