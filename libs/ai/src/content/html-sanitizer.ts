import sanitizeHtml from 'sanitize-html';

/**
 * Article HTML as the API answers it (API.md §3: "sanitised HTML, no script, no event handlers"),
 * whatever the provider wrote: a fixed set of text tags, links to http/https/mailto only (with
 * `rel="noopener nofollow"`), no attributes besides `href` and `rel`.
 */

const ARTICLE_TAGS = ['h2', 'h3', 'h4', 'p', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'blockquote', 'code', 'pre', 'br', 'a', 'hr'];

/**
 * Dropped together with their text: their content is code, styling or another document, never
 * article prose. sanitize-html's own list is repeated (it is replaced, not extended).
 */
const DROPPED_WITH_CONTENT = [
  'script',
  'style',
  'textarea',
  'option',
  'xmp',
  'noscript',
  'noembed',
  'noframes',
  'iframe',
  'object',
  'embed',
  'template',
  'title',
  'head',
  'svg',
  'math',
  'select',
];

const ARTICLE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ARTICLE_TAGS,
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  // `//host/path` would inherit the page's scheme: only absolute links are kept.
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_WITH_CONTENT,
  transformTags: {
    // Whatever rel the provider wrote, links open without access to the page and pass no ranking.
    a: (tagName, attribs) => ({ tagName, attribs: { ...(attribs.href ? { href: attribs.href } : {}), rel: 'noopener nofollow' } }),
  },
};

export function sanitizeArticleHtml(html: string): string {
  return sanitizeHtml(html, ARTICLE_OPTIONS).trim();
}

const BLOCK_TAG = /<\/?(?:h[1-6]|p|ul|ol|li|blockquote|pre|hr|br)\b[^>]*>/gi;

/**
 * Plain text of (any) HTML, for excerpts and titles: tags removed, dropped content gone, entities
 * decoded, one line per block, spaces collapsed.
 */
export function htmlToText(html: string): string {
  // Sanitising first leaves well-formed markup of known tags, with `<`, `>` and `&` in text escaped,
  // so the tags can then be found and removed reliably.
  const safe = sanitizeHtml(html, { ...ARTICLE_OPTIONS, transformTags: {}, allowedAttributes: {} });
  const text = safe
    .replace(BLOCK_TAG, '\n')
    .replace(/<[^>]*>/g, '')
    // sanitize-html escapes exactly these in text; `&amp;` last so `&amp;lt;` stays `&lt;`.
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
