import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type HttpConfig, httpConfig, queryRows, TenantDb } from '@app/core';
import { COVER_HEIGHT, COVER_WIDTH } from '../images/cover-renderer.js';

export const COVERS_PATH = 'media/covers';

/** Stored cover PNGs and their public URLs (`<PUBLIC_BASE_URL>/media/covers/<id>.png`). */
@Injectable()
export class CoverStore {
  constructor(
    private readonly db: TenantDb,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
  ) {}

  /** Stores a 1200×630 PNG and returns its public URL (as the calling user: needs `ai` on the store). */
  async save(storeId: string, png: Buffer): Promise<string> {
    // The id is made here: requests may add covers but not read the table back (no RETURNING).
    const id = randomUUID();
    await queryRows(
      this.db.tx,
      `INSERT INTO ai_images (id, store_id, content_type, width, ` +
        `height, bytes) VALUES ($1, $2, 'image/png', $3, $4, $5)`,
      [id, storeId, COVER_WIDTH, COVER_HEIGHT, png],
    );
    return `${this.config.baseUrl}/${COVERS_PATH}/${id}.png`;
  }

  /** A cover by its id, for anyone holding the URL (the id is unguessable, like a CDN object's). */
  async find(id: string): Promise<{ contentType: string; bytes: Buffer } | null> {
    // No user here: the request login, outside any transaction, may call only the narrow function.
    const [row]: { content_type: string; bytes: Buffer }[] = await this.db.unbound.query(
      `SELECT * FROM app_cover($1)`,
      [id],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }
}
