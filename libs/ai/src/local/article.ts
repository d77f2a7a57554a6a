import type {
  ArticleDraft,
  ArticleInput,
  ArticleLength,
} from '../functions/generate-blog-autopilot/generate-blog-autopilot.task.js';
import type { Seed } from './seed.js';
import { cap } from './templates/helpers.js';
import type { ArticleVars, LocaleTemplates, SectionKind } from './templates/index.js';
import { clip, escapeHtml, sentence, tidy, wordCount } from './text.js';

/**
 * The offline article: h2 sections of p paragraphs (one section with a ul list), built sentence by
 * sentence until each section reaches its share of the length's word budget.
 */

const SECTIONS: Record<ArticleLength, readonly SectionKind[]> = {
  short: ['intro', 'tips', 'conclusion'],
  medium: ['intro', 'why', 'basics', 'tips', 'conclusion'],
  long: ['intro', 'why', 'basics', 'steps', 'tips', 'mistakes', 'examples', 'conclusion'],
};

/** Words aimed at: short ≈ 250–400, medium ≈ 600–900, long ≈ 1200–1600. */
const WORD_BUDGET: Record<ArticleLength, number> = { short: 310, medium: 720, long: 1360 };

const SENTENCES_PER_PARAGRAPH = 3;
const TIPS_IN_LIST = 5;

/** Endless distinct sentences: openers and claims walked in seeded orders of coprime lengths. */
class SentenceSource {
  private index = 0;
  private readonly openers;
  private readonly claims;

  constructor(
    t: LocaleTemplates,
    seed: Seed,
    private readonly vars: ArticleVars,
  ) {
    this.openers = seed.shuffle('openers', t.article.openers);
    this.claims = seed.shuffle('claims', t.article.claims);
  }

  next(): string {
    const i = this.index++;
    const opener = this.openers[i % this.openers.length](this.vars);
    const claim = this.claims[i % this.claims.length](this.vars);
    return sentence(`${opener}, ${claim}`);
  }
}

const paragraph = (sentences: string[]) => `<p>${escapeHtml(sentences.join(' '))}</p>`;

export function buildArticle(input: ArticleInput, t: LocaleTemplates, seed: Seed): ArticleDraft {
  const vars: ArticleVars = { topic: tidy(input.topic), tone: tidy(input.tone) };
  const a = t.article;
  const kinds = SECTIONS[input.length] ?? SECTIONS.medium;
  const sectionBudget = (WORD_BUDGET[input.length] ?? WORD_BUDGET.medium) / kinds.length;
  const source = new SentenceSource(t, seed, vars);
  const title = seed.pick('title', a.titles)(vars);
  const introSentences: string[] = [];

  const html: string[] = [];
  for (const kind of kinds) {
    const heading = a.headings[kind](vars);
    html.push(`<h2>${escapeHtml(heading)}</h2>`);
    let words = wordCount(heading);
    // Sentences that must open or close the section, besides the generated ones.
    const first = kind === 'intro' ? [a.intro(vars)] : kind === 'tips' ? [a.tipsIntro(vars)] : [];
    const last = kind === 'conclusion' ? [a.conclusion(vars)] : [];
    let current = [...first];
    words += wordCount(first.join(' ')) + wordCount(last.join(' '));

    if (kind === 'tips') {
      html.push(paragraph(current));
      current = [];
      const tips = seed
        .shuffle('tips', a.tips)
        .slice(0, TIPS_IN_LIST)
        .map((tip) => tip(vars));
      html.push(`<ul>${tips.map((tip) => `<li>${escapeHtml(tip)}</li>`).join('')}</ul>`);
      words += wordCount(tips.join(' '));
    }
    while (words < sectionBudget) {
      const next = source.next();
      current.push(next);
      words += wordCount(next);
      if (current.length >= SENTENCES_PER_PARAGRAPH) {
        if (kind === 'intro' && !introSentences.length) introSentences.push(...current);
        html.push(paragraph(current));
        current = [];
      }
    }
    current.push(...last);
    if (current.length) {
      if (kind === 'intro' && !introSentences.length) introSentences.push(...current);
      html.push(paragraph(current));
    }
  }

  return {
    title,
    content: html.join('\n'),
    excerpt: clip(introSentences.slice(0, 2).join(' ') || a.intro(vars), 300),
    seo_title: clip(title, 60),
    seo_description: clip(cap(a.seoDescription(vars)), 160),
  };
}
