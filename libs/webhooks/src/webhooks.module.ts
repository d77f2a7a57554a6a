import { Module } from '@nestjs/common';

/** Webhook registration and signed deliveries (issue 4). Wired into the app; not built yet. */
@Module({})
export class WebhooksModule {}
