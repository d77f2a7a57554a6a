import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '@app/core';
import { GENERATED_SECRET_BYTES, SECRET_PREFIX } from './webhook-api.constants.js';
import { secretHint } from './webhook.js';

/** A secret as stored: sealed (AES-256-GCM) and the hint merchants see. */
export interface StoredSecret {
  sealed: string;
  hint: string;
}

/** Makes and seals signing secrets; the plaintext is never stored. */
@Injectable()
export class WebhookSecrets {
  constructor(private readonly box: SecretBox) {}

  /** A new `whsec_<base64>` secret of GENERATED_SECRET_BYTES random bytes (the Standard Webhooks format). */
  generate(): string {
    return `${SECRET_PREFIX}${randomBytes(GENERATED_SECRET_BYTES).toString('base64')}`;
  }

  store(secret: string): StoredSecret {
    return { sealed: this.box.seal(secret), hint: secretHint(secret) };
  }
}
