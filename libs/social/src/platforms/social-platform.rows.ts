import { Injectable, type OnModuleInit } from '@nestjs/common';
import { queryRows, SystemDb } from '@app/core';
import { SOCIAL_PLATFORM_DEFINITIONS } from './registry.js';

/**
 * Writes the registry's platforms into `social_platforms` at start, as the system: the rows the
 * database's foreign keys accept in `platform` columns (social_platforms, libs/social/src/migrations).
 * Every process does it; an upsert, so processes starting together agree.
 */
@Injectable()
export class SocialPlatformRows implements OnModuleInit {
  constructor(private readonly system: SystemDb) {}

  async onModuleInit(): Promise<void> {
    await this.system.run(() =>
      queryRows(
        this.system.tx,
        `INSERT INTO social_platforms AS p (id, display_name)
         SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name
          WHERE p.display_name IS DISTINCT FROM excluded.display_name`,
        [
          SOCIAL_PLATFORM_DEFINITIONS.map((platform) => platform.id),
          SOCIAL_PLATFORM_DEFINITIONS.map((platform) => platform.displayName),
        ],
      ),
    );
  }
}
