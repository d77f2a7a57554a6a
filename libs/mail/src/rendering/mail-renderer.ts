import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Inject, Injectable } from '@nestjs/common';
import Mustache from 'mustache';
import { MAIL_TEMPLATES, type MailTemplate } from '../templates.js';
import { mailConfig, type MailConfig } from '../mail.config.js';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

type Strings = Record<string, string>;
type Locale = Record<string, Strings>;

const DEFAULT_LANGUAGE = 'en';
// Every attribute of the templates is quoted: these five are all a value needs escaped.
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: unknown) => String(value).replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
const asIs = (value: unknown) => String(value);

/**
 * `libs/mail/templates`, found from this file upwards: it is the same folder whether the code runs
 * from the sources (tests) or from `dist` (the build), since the templates are not compiled.
 */
export function templatesFolder(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'libs', 'mail', 'templates');
    if (fs.existsSync(path.join(candidate, 'locales', `${DEFAULT_LANGUAGE}.json`))) return candidate;
    if (path.dirname(dir) === dir)
      throw new Error('The mail templates (libs/mail/templates) were not found above ' + from);
  }
}

/**
 * Renders a message from its templates: the words of the message's language (the store's; English
 * when we have no translation) filled with the message's values, then the HTML and plain-text bodies
 * inside their layouts. Values are HTML-escaped in the HTML body and taken as they are in the text.
 */
@Injectable()
export class MailRenderer {
  private readonly bodies = new Map<string, string>();
  private readonly locales = new Map<string, Locale>();
  private readonly product: string;

  constructor(@Inject(mailConfig.KEY) config: MailConfig) {
    const folder = templatesFolder();
    for (const name of [...MAIL_TEMPLATES, 'layout']) {
      for (const format of ['html', 'txt']) {
        this.bodies.set(`${name}.${format}`, fs.readFileSync(path.join(folder, `${name}.${format}.mustache`), 'utf8'));
      }
    }
    for (const file of fs.readdirSync(path.join(folder, 'locales'))) {
      if (file.endsWith('.json'))
        this.locales.set(file.slice(0, -5), JSON.parse(fs.readFileSync(path.join(folder, 'locales', file), 'utf8')));
    }
    this.product = /^\s*"?([^"<]+?)"?\s*</.exec(config.MAIL_FROM)?.[1] ?? 'Storefront Platform';
  }

  /** The languages we have words for. */
  get languages(): string[] {
    return [...this.locales.keys()];
  }

  render(template: MailTemplate, language: string, values: Record<string, unknown>): RenderedMail {
    const chosen = this.languageFor(language);
    const locale = this.locales.get(chosen)!;
    const fallback = this.locales.get(DEFAULT_LANGUAGE)!;
    const view = { ...this.derived(values, chosen), product: this.product, language: chosen };
    const words = (format: 'html' | 'txt'): { t: Strings; common: Strings } => {
      const escape = format === 'html' ? escapeHtml : asIs;
      const fill = (strings: Strings = {}, defaults: Strings = {}) =>
        Object.fromEntries(
          Object.entries({ ...defaults, ...strings }).map(([key, text]) => [
            key,
            Mustache.render(text, view, {}, { escape }),
          ]),
        );
      return { t: fill(locale[template], fallback[template]), common: fill(locale.common, fallback.common) };
    };
    const body = (format: 'html' | 'txt') =>
      Mustache.render(
        this.bodies.get(`layout.${format}`)!,
        { ...view, ...words(format), subject: words('txt').t.subject },
        { content: this.bodies.get(`${template}.${format}`)! },
        { escape: format === 'html' ? escapeHtml : asIs },
      );
    return {
      subject: words('txt')
        .t.subject.replace(/[\r\n]+/g, ' ')
        .trim(),
      text:
        body('txt')
          .replace(/\n{3,}/g, '\n\n')
          .trim() + '\n',
      html: body('html'),
    };
  }

  /** `fr-CA` → `fr` when we have French; English when we have neither. */
  languageFor(language: string): string {
    const tag = language.toLowerCase();
    if (this.locales.has(tag)) return tag;
    const base = tag.split(/[-_]/)[0];
    return this.locales.has(base) ? base : DEFAULT_LANGUAGE;
  }

  /** Values the templates show that are computed from the message's data, in its language. */
  private derived(values: Record<string, unknown>, language: string): Record<string, unknown> {
    const view: Record<string, unknown> = { ...values };
    if (Array.isArray(values.permissions)) view.permissions_text = values.permissions.join(', ');
    if (typeof values.expires_at === 'string') {
      const at = new Date(values.expires_at);
      if (!Number.isNaN(at.getTime())) {
        view.expires_at_text =
          new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at) +
          ' UTC';
      }
    }
    return view;
  }
}
