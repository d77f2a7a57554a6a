import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig, queryRows } from '@app/core';
import { COVER_HEIGHT, COVER_WIDTH } from '../images/cover-renderer.js';

export const COVERS_PATH = 'media/covers';

/** Stored cover PNGs and their public URLs (`<PUBLIC_BASE_URL>/media/covers/<id>.png`). */
@Injectable()
export class CoverStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Stores a 1200×630 PNG and answers its public URL. */
  async save(storeId: string, png: Buffer): Promise<string> {
    const [row] = await queryRows<{ id: string }>(
      this.dataSource.manager,
      `INSERT INTO ai_images (store_id, content_type, width, height, bytes) VALUES ($1, 'image/png', $2, $3, $4) RETURNING id`,
      [storeId, COVER_WIDTH, COVER_HEIGHT, png],
    );
    return `${this.config.baseUrl}/${COVERS_PATH}/${row.id}.png`;
  }

  async find(id: string): Promise<{ contentType: string; bytes: Buffer } | null> {
    const [row] = await queryRows<{ content_type: string; bytes: Buffer }>(
      this.dataSource.manager,
      `SELECT content_type, bytes FROM ai_images WHERE id = $1`,
      [id],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }
}
