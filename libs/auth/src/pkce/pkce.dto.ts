import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { GoTrueError } from '@app/core';

/** How a challenge is made from its verifier (RFC 7636), written as GoTrue writes it. */
export type PkceMethod = 's256' | 'plain';

/** A client's PKCE challenge: given, an e-mailed link or Google's callback returns `?code=` instead of a session. */
export interface PkceChallenge {
  challenge: string;
  method: PkceMethod;
}

/** How long an auth code can be exchanged for its session. */
export const AUTH_CODE_TTL_SECONDS = 300;

const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const BAD_CHALLENGE = 'code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~"';

/** The PKCE fields GoTrue's e-mail routes take (supabase-js with `flowType: 'pkce'` sends them). */
export class PkceFields {
  @ApiPropertyOptional({
    description:
      'PKCE (RFC 7636): the challenge of a verifier the client keeps. Given, the e-mailed link returns to ' +
      '`redirect_to?code=<auth_code>`, to exchange with POST /auth/v1/token?grant_type=pkce; left out, the link ' +
      'signs in with the session in the URL fragment',
    example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  })
  @IsOptional()
  @IsString({ message: 'code_challenge must be a string' })
  @MaxLength(200)
  code_challenge?: string;

  @ApiPropertyOptional({ enum: ['s256', 'plain'], description: 'With code_challenge (either case)', example: 's256' })
  @IsOptional()
  @IsString({ message: 'code_challenge_method must be a string' })
  @MaxLength(20)
  code_challenge_method?: string;
}

type PkceInput = { code_challenge?: unknown; code_challenge_method?: unknown };

/** The challenge of a body or query, checked as GoTrue checks it; undefined for the implicit flow. */
export function pkceChallenge(fields: PkceInput): PkceChallenge | undefined {
  const challenge = fields.code_challenge ?? undefined;
  const method = fields.code_challenge_method ?? undefined;
  if (challenge === undefined && method === undefined) return undefined;
  if (typeof challenge !== 'string' || typeof method !== 'string' || challenge === '' || method === '') {
    throw new GoTrueError(400, 'validation_failed', 'PKCE flow requires code_challenge_method and code_challenge');
  }
  const lower = method.toLowerCase();
  if (lower !== 's256' && lower !== 'plain') {
    throw new GoTrueError(400, 'validation_failed', 'code_challenge_method must be s256 or plain');
  }
  if (!CHALLENGE.test(challenge)) {
    throw new GoTrueError(400, 'validation_failed', BAD_CHALLENGE);
  }
  return { challenge, method: lower as PkceMethod };
}

export class PkceGrantBody {
  @ApiProperty({
    description: 'The `code` the link or callback added to `redirect_to` (single use, 5 minutes)',
    example: 'k7Hq2...',
  })
  @IsString({ message: 'auth_code must be a string' })
  @MaxLength(200)
  auth_code: string;

  @ApiProperty({
    description: 'The verifier whose challenge the flow was started with (43 to 128 characters)',
    example: 'dBjftJeZ4CVP...',
  })
  @IsString({ message: 'code_verifier must be a string' })
  @Length(43, 128, { message: 'code_verifier must be 43 to 128 characters' })
  code_verifier: string;
}
