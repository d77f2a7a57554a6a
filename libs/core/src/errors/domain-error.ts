import { Injectable } from '@nestjs/common';
import type { ApiError } from './api-error.js';

/**
 * A refusal by a context's own rules (an order that cannot move, stock that is short), said without
 * HTTP. Each context gives its errors their HTTP answers in one mapping, registered at start with
 * `DomainErrorAnswers.register`; `ErrorEnvelopeFilter` answers with it.
 */
export abstract class DomainError extends Error {
  /** The context whose mapping answers the error (`commerce`). */
  abstract readonly context: string;
  /** Which refusal it is: what the context's mapping switches on. */
  abstract readonly kind: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A context's HTTP answer to each of its domain errors. */
export interface DomainErrorMapping<E extends DomainError = DomainError> {
  readonly context: string;
  answer(error: E): ApiError;
}

/**
 * The contexts' mappings of domain errors to HTTP, one per context. A domain error of a context
 * that registered none is a wiring bug, and answers 500 like any other unexpected error.
 */
@Injectable()
export class DomainErrorAnswers {
  private readonly mappings = new Map<string, DomainErrorMapping>();

  register<E extends DomainError>(mapping: DomainErrorMapping<E>): void {
    if (this.mappings.has(mapping.context)) throw new Error(`the domain errors of ${mapping.context} are mapped twice`);
    this.mappings.set(mapping.context, mapping as unknown as DomainErrorMapping);
  }

  /** The answer to `error`; undefined when its context registered no mapping. */
  answer(error: DomainError): ApiError | undefined {
    return this.mappings.get(error.context)?.answer(error);
  }
}
