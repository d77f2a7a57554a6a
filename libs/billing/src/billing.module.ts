import { Module } from '@nestjs/common';
import { StoreAccessModule } from '@app/core';
import { CreditsController } from './credits.controller.js';
import { CreditsService } from './credits.service.js';
import { ChargeCreditsHandler, RefundCreditsHandler } from './credit-commands.handler.js';
import { OpenCreditAccountHandler } from './open-credit-account.handler.js';

/**
 * AI credits: the ledger, the AI functions' costs and hourly maxima (declared by the functions),
 * charge and refund (asked for by the functions on the command bus), welcome and admin grants.
 */
@Module({
  imports: [StoreAccessModule],
  controllers: [CreditsController],
  providers: [CreditsService, OpenCreditAccountHandler, ChargeCreditsHandler, RefundCreditsHandler],
  exports: [CreditsService],
})
export class BillingModule {}
