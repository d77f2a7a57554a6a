import { htmlToText, sanitizeArticleHtml, tidyLines } from '../../content/html-sanitizer.js';
import { buildArticle } from '../../local/article.js';
import { Seed } from '../../local/seed.js';
import { LOCAL_LANGUAGES, templatesFor } from '../../local/templates/index.js';
import { object, structuredOutput, text } from '../../openai/schemas.js';
import { unusableAnswer as invalid, type AiTask } from '../../providers/ai-provider.js';
import { plainTextField } from '../normalize.js';

export const ARTICLE_LENGTHS = ['short', 'medium', 'long'] as const;
export type ArticleLength = (typeof ARTICLE_LENGTHS)[number];

/** Rough article sizes, in words. */
const ARTICLE_WORDS: Record<ArticleLength, number> = { short: 300, medium: 750, long: 1400 };

/** Length limits of the generated article fields (the usual SEO limits for title and description). */
export const SEO_TITLE_MAX = 70;
export const SEO_DESCRIPTION_MAX = 170;
export const EXCERPT_MAX = 400;

export interface ArticleInput {
  topic: string;
  tone: string;
  length: ArticleLength;
  language: string;
}

/** The answer's `article`. `content` is HTML; the handler sanitises it before answering. */
export interface ArticleDraft {
  title: string;
  content: string;
  excerpt: string;
  seo_title: string;
  seo_description: string;
}

export const ARTICLE_OUTPUT = structuredOutput<ArticleDraft>(
  'article_draft',
  object({
    title: text('The article title, plain text.'),
    content: text('The article body as HTML using only <h2>, <p>, <ul> and <li> elements, without attributes.'),
    excerpt: text('A plain-text summary of the article.', EXCERPT_MAX),
    seo_title: text('The title for search engines, plain text.', SEO_TITLE_MAX),
    seo_description: text('The meta description for search engines, plain text.', SEO_DESCRIPTION_MAX),
  }),
);

/** Writing a blog article. */
export const GENERATE_BLOG_AUTOPILOT_TASK: AiTask<ArticleInput, ArticleDraft> = {
  name: 'generate-blog-autopilot',
  local: {
    languages: LOCAL_LANGUAGES,
    // Seeded without the language, so translations of one request share their structure.
    generate: (input) =>
      buildArticle(
        input,
        templatesFor(input.language),
        Seed.of('article', input.topic.trim(), input.tone.trim(), input.length),
      ),
  },
  openai: {
    kind: 'chat',
    output: ARTICLE_OUTPUT,
    system:
      "You write blog articles for an online store's blog. The content is HTML with <h2> section headings, <p> " +
      'paragraphs and <ul>/<li> lists only: no <h1> (the title is separate), no other elements, no attributes, no ' +
      'scripts or styles. Answer with the JSON object the schema describes.',
    user: (input) =>
      [
        'Write a blog article.',
        // The caller's free text goes in as JSON so it reads as data, not as more instructions.
        `Request: ${JSON.stringify({ topic: input.topic, tone: input.tone, language: input.language })}`,
        `Length: ${input.length}, about ${ARTICLE_WORDS[input.length]} words in the content.`,
        `All fields in the language ${input.language}; seo_title at most ` +
          `70 characters, seo_description at most 170, excerpt at most 400.`,
      ].join('\n'),
  },
};

/**
 * The answer's rules, whichever provider wrote it: sanitised HTML with some text; the other fields plain text on one
 * line.
 */
export function normalizeArticle(draft: ArticleDraft): ArticleDraft {
  // HTML, not plain text: sanitised, so that its markup is the safe subset.
  const content = typeof draft.content === 'string' ? sanitizeArticleHtml(draft.content) : '';
  if (!content) throw invalid('content is empty');
  if (!htmlToText(content).trim()) throw invalid('the article has no text');
  return {
    // Shown as headings and snippets: one space between words, no blank lines.
    title: tidyLines(plainTextField(draft.title, 'title')),
    content,
    excerpt: tidyLines(plainTextField(draft.excerpt, 'excerpt')),
    seo_title: tidyLines(plainTextField(draft.seo_title, 'seo_title')),
    seo_description: tidyLines(plainTextField(draft.seo_description, 'seo_description')),
  };
}
