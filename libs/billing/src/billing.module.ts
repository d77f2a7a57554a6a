import { Module } from '@nestjs/common';

/** The AI credit ledger, costs and hourly limits (issue 5). Wired into the app; not built yet. */
@Module({})
export class BillingModule {}
