import { Global, Module } from '@nestjs/common';
import { MailRelay } from './delivery/mail-relay.js';
import { MailRetention } from './delivery/mail-retention.js';
import { MailTransport } from './delivery/mail-transport.js';
import { DevMailboxController } from './mailbox/dev-mailbox.controller.js';
import { MailOutbox } from './outbox/mail-outbox.js';
import { MailRenderer } from './rendering/mail-renderer.js';
import { MailSettings } from './settings/mail-settings.js';

/** E-mail: the outbox other libs write to, the relay that sends it, the templates, the development mailbox. */
@Global()
@Module({
  controllers: [DevMailboxController],
  providers: [MailOutbox, MailSettings, MailRenderer, MailTransport, MailRelay, MailRetention],
  exports: [MailOutbox, MailSettings, MailRenderer, MailRelay, MailRetention],
})
export class MailModule {}
