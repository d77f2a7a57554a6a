import { HttpException } from '@nestjs/common';

/**
 * An /auth/v1 error in GoTrue's shape `{code, error_code, msg}`, so that supabase-js
 * surfaces `error.code` and `error.message` as it does against Supabase Auth.
 */
export class GoTrueError extends HttpException {
  constructor(
    status: number,
    readonly errorCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }
}
