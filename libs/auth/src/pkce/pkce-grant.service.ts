import { Injectable } from '@nestjs/common';
import { GoTrueError } from '@app/core';
import type { SessionView } from '../sessions/session.js';
import type { SessionMeta } from '../sessions/session.repository.js';
import { SessionOpener } from '../sessions/session-opener.js';
import { FlowStates, type Exchange } from './flow-states.js';
import type { PkceGrantBody } from './pkce.dto.js';

const MISMATCH = 'code challenge does not match previously saved code verifier';
const FAILURES: Record<Exclude<Exchange['outcome'], 'exchanged'>, () => GoTrueError> = {
  not_found: () => new GoTrueError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found'),
  expired: () => new GoTrueError(400, 'flow_state_expired', 'invalid flow state, flow state has expired'),
  bad_verifier: () => new GoTrueError(403, 'bad_code_verifier', MISMATCH),
};

/**
 * POST /auth/v1/token?grant_type=pkce: an auth code from an e-mailed link or Google's callback, with
 * the verifier of the flow's challenge, becomes a new session of the user the link or Google proved.
 * The session starts now, so after a recovery link it counts as a recent sign-in (PUT /user may set a
 * password). A code works once and for AUTH_CODE_TTL_SECONDS; a wrong verifier does not spend it.
 */
@Injectable()
export class PkceGrant {
  constructor(
    private readonly sessions: SessionOpener,
    private readonly flows: FlowStates,
  ) {}

  /** The session, with `redirect_type` for an e-mailed link (`recovery`: set a new password next). */
  exchange(body: PkceGrantBody, meta: SessionMeta): Promise<SessionView> {
    return this.sessions.anonymous(async () => {
      const exchanged = await this.flows.exchange(body.auth_code, body.code_verifier);
      if (exchanged.outcome !== 'exchanged') throw FAILURES[exchanged.outcome]();
      const session = await this.sessions.start(exchanged.userId, meta);
      return exchanged.kind === 'google' ? session : { ...session, redirect_type: exchanged.kind };
    });
  }
}
