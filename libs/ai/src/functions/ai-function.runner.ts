import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import {
  AI_PROVIDER,
  AiProviderError,
  primaryLanguage,
  type AiProvider,
  type AiTask,
} from '../providers/ai-provider.js';
import type { AiCall, AiFunctionDefinition } from './ai-function.js';
import { ChargeCreditsCommand, RefundCreditsCommand } from './credit-commands.js';

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** `Italian (it)`, or the tag alone, quoted, when English has no name for it. */
function named(tag: string): string {
  let name: string | undefined;
  try {
    name = LANGUAGE_NAMES.of(tag);
  } catch {
    name = undefined;
  }
  return name ? `${name} (${tag})` : `"${tag}"`;
}

const and = (items: string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/**
 * 422 UNPROCESSABLE: the provider does not write `language`. The tag itself is valid (the body's
 * validation passed), but this server cannot serve it, as with a photo it cannot read.
 */
export function languageRefused(providerId: string, language: string, languages: readonly string[]): ApiError {
  const message =
    `The ${providerId} AI provider cannot write ${named(language)}; it writes ` +
    `${and(languages.map(named))}, in any regional variant`;
  return ApiError.unprocessable(message, [{ field: 'language', message }]);
}

/**
 * What every AI function's handler does around its own work: take the configured provider (503
 * NOT_CONFIGURED without one; 422 for a language it does not write, before anything is charged),
 * charge in a committed transaction of its own, and refund when the work fails: a provider failure
 * or an answer that breaks the contract becomes 502 UPSTREAM_FAILED. The provider is asked outside
 * any transaction.
 */
@Injectable()
export class AiFunctionRunner {
  private readonly logger = new Logger(AiFunctionRunner.name);

  constructor(
    @Inject(AI_PROVIDER) private readonly provider: AiProvider | null,
    private readonly commands: CommandBus,
  ) {}

  /** The configured provider, when it can do `task` in `language` (for tasks whose input has one). */
  providerFor(task: AiTask<any, any>, language?: string): AiProvider {
    if (!this.provider)
      throw ApiError.notConfigured(
        'The AI provider is not configured on this server (AI_PROVIDER=openai needs AI_API_KEY)',
      );
    const languages = language === undefined ? null : this.provider.languagesFor(task);
    if (languages && language !== undefined && !languages.includes(primaryLanguage(language))) {
      throw languageRefused(this.provider.id, language, languages);
    }
    return this.provider;
  }

  /** Charges `fn`'s price, runs `work`, and refunds when it fails; a provider failure becomes 502 UPSTREAM_FAILED. */
  async charged<T>(fn: AiFunctionDefinition, call: AiCall, work: (cost: number) => Promise<T>): Promise<T> {
    const charge = await this.commands.execute(new ChargeCreditsCommand(call.storeId, fn.name, call.requestId));
    try {
      return await work(fn.credits);
    } catch (error) {
      await this.commands.execute(new RefundCreditsCommand(charge)).catch((refundError: unknown) => {
        this.logger.error(
          { err: refundError, charge_id: charge.id, store_id: call.storeId, actor: call.actor },
          'refund failed; the charge stands',
        );
      });
      if (error instanceof AiProviderError) {
        this.logger.warn(
          { function: fn.name, reason: error.reason, store_id: call.storeId, err: error.cause ?? error },
          'AI provider failed',
        );
        throw ApiError.upstreamFailed(`${error.message}. The ${charge.amount} credits were refunded.`);
      }
      throw error;
    }
  }
}
