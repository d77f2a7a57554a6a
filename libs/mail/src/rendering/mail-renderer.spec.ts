import fs from 'node:fs';
import path from 'node:path';
import { MAIL_TEMPLATES } from '../templates.js';
import { mailConfig } from '../mail.config.js';
import { MailRenderer, templatesFolder } from './mail-renderer.js';

const config = mailConfig.from({ NODE_ENV: 'test' });
const renderer = new MailRenderer(config);
const values = {
  email: 'ada@example.com',
  recipient: 'ada@example.com',
  new_email: 'new@example.com',
  old_email: 'old@example.com',
  action_url: 'https://api.example.com/auth/v1/verify?token=abc&type=signup&redirect_to=https%3A%2F%2Fapp.example',
  code: '123456',
  expires_minutes: 60,
  store_name: 'Blue <Fern> & Co',
  inviter_email: 'owner@example.com',
  permissions: ['catalog', 'orders'],
  expires_at: '2026-11-29T10:00:00.000Z',
  url: 'https://hooks.example.com/in',
  reason: '5 delivery attempts failed; the last: HTTP 500',
  message: 'A scheduled post could not be published to x',
  post_id: 'post-1',
  failed: [{ platform: 'x', code: 'rate_limited', message: 'Too many requests' }],
};

describe('MailRenderer', () => {
  it('has every message in HTML and text, in every language we have words for', () => {
    expect(renderer.languages.sort()).toEqual(['de', 'en', 'es', 'fr', 'pt']);
    for (const language of renderer.languages) {
      for (const template of MAIL_TEMPLATES) {
        const mail = renderer.render(template, language, values);
        expect(mail.subject.length, `${template} ${language}`).toBeGreaterThan(5);
        expect(mail.subject).not.toMatch(/\{\{|\}\}/);
        expect(mail.text).not.toMatch(/\{\{|\}\}/);
        expect(mail.html).not.toMatch(/\{\{|\}\}/);
        expect(mail.html).toContain(`<html lang="${language}">`);
      }
    }
  });

  it('translates every word of the English messages', () => {
    const folder = templatesFolder();
    const read = (language: string) =>
      JSON.parse(fs.readFileSync(path.join(folder, 'locales', `${language}.json`), 'utf8'));
    const keys = (locale: Record<string, Record<string, string>>) =>
      Object.entries(locale)
        .flatMap(([message, words]) => Object.keys(words).map((key) => `${message}.${key}`))
        .sort();
    const english = keys(read('en'));
    for (const language of ['fr', 'es', 'de', 'pt']) expect(keys(read(language)), language).toEqual(english);
  });

  it('puts the link and the code in both bodies; escapes values in HTML only', () => {
    const mail = renderer.render('confirm_signup', 'en', values);
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.text).toContain(values.action_url);
    expect(mail.text).toContain('123456');
    expect(mail.text).toContain('60 minutes');
    expect(mail.html).toContain('href="https://api.example.com/auth/v1/verify?token=abc&amp;type=signup');
    const invitation = renderer.render('team_invitation', 'en', values);
    expect(invitation.subject).toBe('You are invited to join Blue <Fern> & Co');
    expect(invitation.text).toContain('the team of Blue <Fern> & Co');
    expect(invitation.html).toContain('Blue &lt;Fern&gt; &amp; Co');
    expect(invitation.html).not.toContain('<Fern>');
    expect(invitation.text).toContain('catalog, orders');
    expect(invitation.text).toContain('November 29, 2026');
  });

  it('speaks the store language, its base language, or English', () => {
    expect(renderer.render('reset_password', 'fr', values).subject).toBe('Réinitialisez votre mot de passe');
    expect(renderer.render('reset_password', 'fr-CA', values).subject).toBe('Réinitialisez votre mot de passe');
    expect(renderer.render('reset_password', 'pt-BR', values).subject).toBe('Redefina a sua palavra-passe');
    expect(renderer.render('reset_password', 'ja', values).subject).toBe('Reset your password');
    expect(renderer.render('team_invitation', 'de', values).text).toContain('29. November 2026');
  });

  it('lists the platforms a scheduled post failed on', () => {
    const mail = renderer.render('social_post_failed', 'en', values);
    expect(mail.text).toContain('- x: Too many requests');
    expect(mail.html).toContain('<li><strong>x</strong>: Too many requests</li>');
    const interrupted = renderer.render('social_post_failed', 'en', {
      ...values,
      failed: undefined,
      message: 'interrupted while publishing',
    });
    expect(interrupted.text).toContain('interrupted while publishing');
  });
});
