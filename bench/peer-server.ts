/**
 * The benchmark's peer: the API's product list written the way a typical NestJS app writes it, to
 * tell whether the API's fuller pipeline costs more or less than an idiomatic one. A NestJS app on
 * the Fastify adapter with a global ValidationPipe; one controller, `GET
 * /functions/v1/stores/:store_id/products`, behind `AuthGuard('jwt')` (passport-jwt with the API's
 * JWT_SECRET), a class-validator DTO for the API's query parameters, and TypeORM repositories: the
 * caller's access to the store, then `find({ where: { store_id }, order, take })`. The answer has the
 * API's shape (`{ success, data, next_cursor }`).
 *
 * What it leaves out, as such apps often do: row-level security (it connects as the database's
 * superuser, which the bench uses for its setup, where a typical app connects as the tables' owner;
 * either way no policy applies), the session check behind the token, the rate limit, request logging,
 * metrics and tracing, the error envelope and the security headers.
 *
 * Env: PORT, DATABASE_URL, DATABASE_POOL_SIZE (10, as the API), JWT_SECRET, JWT_AUDIENCE (authenticated).
 */
import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PeerModule } from './peer/peer.module.js';

const app = await NestFactory.create<NestFastifyApplication>(PeerModule, new FastifyAdapter(), {
  logger: ['error', 'warn'],
});
app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
app.enableShutdownHooks();
app.getHttpAdapter().get('/health', (_request, reply) => reply.send({ status: 'ok' }));
await app.listen(Number(process.env.PORT), '127.0.0.1');
