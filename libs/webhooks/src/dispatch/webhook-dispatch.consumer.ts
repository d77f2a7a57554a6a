import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { OutboxRelay } from '@app/core';
import { DispatchWebhookCommand } from './dispatch-webhook/dispatch-webhook.command.js';

/**
 * Turns every store event the outbox relay hands over into a dispatch to the store's webhooks.
 * It is a relay consumer rather than an EventBus saga: @nestjs/cqrs runs a saga's commands without
 * waiting, so the relay would mark an event dispatched before its deliveries exist, and a failure
 * would lose it. The relay awaits this before marking the row.
 */
@Injectable()
export class WebhookDispatchConsumer implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly commands: CommandBus,
  ) {}

  onModuleInit(): void {
    this.relay.registerConsumer(async (envelopes) => {
      await this.commands.execute(new DispatchWebhookCommand(envelopes));
    });
  }
}
