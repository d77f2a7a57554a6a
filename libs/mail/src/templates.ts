/**
 * The messages the service sends. Each has an HTML and a plain-text body in `libs/mail/templates`
 * (`<name>.html.mustache`, `<name>.txt.mustache`) and its words per language in
 * `libs/mail/templates/locales/<language>.json`.
 */
export const MAIL_TEMPLATES = [
  'confirm_signup',
  'reset_password',
  'confirm_email_change',
  'email_changed',
  'team_invitation',
  'webhook_disabled',
  'social_post_failed',
  'magic_link',
] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

/** The notices a store's owner (or the admin) may turn off for the store; account e-mails cannot be. */
export const STORE_NOTICES = ['team_invitation', 'webhook_disabled', 'social_post_failed'] as const;
export type StoreNotice = (typeof STORE_NOTICES)[number];
