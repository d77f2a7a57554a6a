import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { Command } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { actorOf, requireRequestPrincipal, type StoreAccess } from '@app/core';

/**
 * What an AI function declares beside its command: its route name (`POST /functions/v1/<name>`),
 * what one call costs in AI credits and how many calls a store may make in any 60 minutes (the
 * default of `AI_HOURLY_LIMITS`). The list of them (`AI_FUNCTIONS`, functions/registry.ts) is the
 * price list billing charges by and reports usage against.
 */
export interface AiFunctionDefinition<Name extends string = string> {
  readonly name: Name;
  /** Whole credits charged per call, at least 1. */
  readonly credits: number;
  /** Calls per store in any 60 minutes, at least 1. */
  readonly hourlyLimit: number;
}

export function defineAiFunction<const Name extends string>(
  definition: AiFunctionDefinition<Name>,
): AiFunctionDefinition<Name> {
  return Object.freeze({ ...definition });
}

/** `ai_credits_used` of an answer: what the call of `fn` was charged. */
export const creditsUsed = (fn: AiFunctionDefinition) => ({
  type: 'integer' as const,
  minimum: 1,
  description: 'The AI credits this call was charged',
  example: fn.credits,
});

/**
 * Who calls, for which store: the store is charged, the request id is the charge's ledger reference.
 * The caller is a signed-in user or a store key holding `ai` (the ledger records which, from the
 * transaction's bound caller).
 */
export interface AiCall {
  storeId: string;
  actor: { type: 'user' | 'api_key'; id: string };
  requestId: string;
}

/**
 * The call of the request, from what the guards resolved: the store StoreAccessGuard judged (routes
 * marked @StoreScoped), the signed-in user or store key, the request id.
 */
export const CurrentAiCall = createParamDecorator((_: unknown, ctx: ExecutionContext): AiCall => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const access: StoreAccess | undefined = request.storeAccess;
  if (!access) throw new Error('CurrentAiCall used on a route without @StoreScoped');
  const actor = actorOf(requireRequestPrincipal(request.principal))!;
  return { storeId: access.storeId, actor, requestId: String(request.id) };
});

/** A call of an AI function: the caller and the validated body; executes to the answer (less `success`). */
export abstract class AiFunctionCommand<Body, Answer> extends Command<Answer> {
  constructor(
    readonly call: AiCall,
    readonly body: Body,
  ) {
    super();
  }
}
