import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An invitation's e-mailed link carries a token of its own, beside the `invite_token` the inviting
 * merchant is answered: the link proves the invitee reads the invited address (it signs the invitee
 * in), which a token the merchant also holds could not. Stored as its SHA-256, cleared on acceptance.
 */
export class InvitationLinks1763801720050 implements MigrationInterface {
  name = 'InvitationLinks1763801720050';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE store_members ADD COLUMN invite_link_hash bytea UNIQUE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE store_members DROP COLUMN invite_link_hash`);
  }
}
