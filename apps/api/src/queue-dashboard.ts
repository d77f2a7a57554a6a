import { BullAdapter } from '@bull-board/api/bullAdapter';
import { createBullBoard } from '@bull-board/api';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import { All, Controller, Injectable, Req, Res, type OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Queue } from 'bull';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Roles } from '@app/auth';
import { SOCIAL_POST_QUEUE } from '@app/social';
import { DELIVERY_QUEUE } from '@app/webhooks';

/** Where the queue dashboard is served (admins only). */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/** Request headers the dashboard may see: not the caller's credentials, nor what the outer server already settled. */
const DROPPED_REQUEST_HEADERS = new Set([
  'authorization',
  'apikey',
  'cookie',
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
]);
/** Answer headers of the dashboard's own server that the outer one sets itself. */
const DROPPED_ANSWER_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive', 'date']);

/**
 * Bull Board (the webhook deliveries and scheduled posts queues), read-only: it shows jobs and their
 * data, and cannot retry, promote or remove them (the app's sweeps own the jobs; promoting a scheduled
 * post would publish it early). It runs in a Fastify instance of its own, built at the first request,
 * which no client reaches directly: the only way in is QueueDashboardController, behind the app's
 * guards.
 */
@Injectable()
export class QueueDashboard implements OnModuleDestroy {
  private server?: Promise<FastifyInstance>;

  constructor(private readonly modules: ModuleRef) {}

  /** The dashboard's answer to a request that passed the guards. */
  async answer(
    request: FastifyRequest,
  ): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const server = await (this.server ??= this.build());
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !DROPPED_REQUEST_HEADERS.has(name)),
    );
    const body = request.body;
    const answer = await server.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: headers as Record<string, string>,
      payload:
        body === undefined || body === null
          ? undefined
          : typeof body === 'string' || Buffer.isBuffer(body)
            ? body
            : JSON.stringify(body),
    });
    const answerHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !DROPPED_ANSWER_HEADERS.has(name))
        answerHeaders[name] = Array.isArray(value) ? value : String(value);
    }
    return { status: answer.statusCode, headers: answerHeaders, body: answer.rawPayload };
  }

  async onModuleDestroy(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.then((instance) => instance.close()).catch(() => undefined);
  }

  private async build(): Promise<FastifyInstance> {
    const queue = (name: string) => this.modules.get<Queue>(getQueueToken(name), { strict: false });
    const serverAdapter = new BullBoardFastifyAdapter();
    serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: [
        new BullAdapter(queue(DELIVERY_QUEUE), { readOnlyMode: true }),
        new BullAdapter(queue(SOCIAL_POST_QUEUE), { readOnlyMode: true }),
      ],
      serverAdapter,
      options: { uiConfig: { boardTitle: 'Storefront queues' } },
    });
    const server = Fastify({ logger: false });
    await server.register(serverAdapter.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
    await server.ready();
    return server;
  }
}

/**
 * The queue dashboard at /admin/queues (its page, scripts and JSON API), for admins only: the global
 * guards run as on every route (a signed-in user's Bearer token, then @Roles), so no token answers 401
 * and any other role 403, in the error envelope. Not part of the API document.
 */
@ApiExcludeController()
@Roles('admin', { message: 'Only admins may open the queue dashboard' })
@Controller(QUEUE_DASHBOARD_PATH.slice(1))
export class QueueDashboardController {
  constructor(private readonly dashboard: QueueDashboard) {}

  @All(['', '*'])
  async serve(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const answer = await this.dashboard.answer(request);
    await reply.status(answer.status).headers(answer.headers).send(answer.body);
  }
}
