import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { UserView } from '../users/user.js';

/**
 * The GoTrue session body that sign-up, sign-in and refresh answer; the class documents it in the
 * OpenAPI document (`SessionView`).
 */
export class SessionView {
  @ApiProperty({
    description: 'A JWT: send it as `Authorization: Bearer <access_token>`',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...',
  })
  access_token!: string;
  @ApiProperty({ enum: ['bearer'], example: 'bearer' })
  token_type!: 'bearer';
  @ApiProperty({ type: 'integer', description: 'Seconds the access token stays valid', example: 3600 })
  expires_in!: number;
  @ApiProperty({
    type: 'integer',
    description: 'When the access token expires, in seconds since 1970 (UTC)',
    example: 1795000000,
  })
  expires_at!: number;
  @ApiProperty({
    description:
      'Single use: trade it at POST /auth/v1/token?grant_type=refresh_token for the next session (presented again ' +
      "within AUTH_REFRESH_REUSE_INTERVAL of that, it returns the session's current tokens)",
    example: 'n3Vq2xk8...',
  })
  refresh_token!: string;
  @ApiProperty({ type: () => UserView })
  user!: UserView;
  @ApiPropertyOptional({
    enum: ['signup', 'recovery', 'email_change', 'magiclink'],
    description: 'grant_type=pkce only: the kind of e-mailed link the auth code came from (none after Google)',
    example: 'recovery',
  })
  redirect_type?: 'signup' | 'recovery' | 'email_change' | 'magiclink';
}
