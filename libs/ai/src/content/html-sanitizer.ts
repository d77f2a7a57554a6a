import sanitizeHtml from 'sanitize-html';

/**
 * Article HTML as the API answers it (sanitised: no scripts, no event handlers),
 * whatever the provider wrote: a fixed set of text tags, links to http/https/mailto only (with
 * `rel="noopener nofollow"`), no attributes besides `href` and `rel`.
 */

const ARTICLE_TAGS = [
  'h2',
  'h3',
  'h4',
  'p',
  'ul',
  'ol',
  'li',
  'strong',
  'em',
  'b',
  'i',
  'blockquote',
  'code',
  'pre',
  'br',
  'a',
  'hr',
];

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
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...(attribs.href ? { href: attribs.href } : {}), rel: 'noopener nofollow' },
    }),
  },
};

export function sanitizeArticleHtml(html: string): string {
  return sanitizeHtml(html, ARTICLE_OPTIONS).trim();
}

const BLOCK_TAG = /<\/?(?:h[1-6]|p|ul|ol|li|blockquote|pre|hr|br)\b[^>]*>/gi;

/** Only tags, no attributes: enough to find block boundaries, nothing else survives. */
const TEXT_OPTIONS: sanitizeHtml.IOptions = { ...ARTICLE_OPTIONS, transformTags: {}, allowedAttributes: {} };

/**
 * For values that are plain text already: no element's text is dropped, so an unclosed `<script>`
 * or `<svg>` (a clipped title, a topic typed as markup) cannot swallow the rest of the value.
 */
const PLAIN_TEXT_OPTIONS: sanitizeHtml.IOptions = { ...TEXT_OPTIONS, nonTextTags: [] };

/**
 * The text of `html`, whitespace as it was except block tags turned into line breaks: tags
 * removed, dropped content gone, one level of entities decoded.
 */
function textContent(html: string, options = TEXT_OPTIONS): string {
  // Sanitising first leaves well-formed markup of known tags, with `<`, `>` and `&` in text escaped,
  // so the tags can then be found and removed reliably.
  return (
    sanitizeHtml(html, options)
      .replace(BLOCK_TAG, '\n')
      .replace(/<[^>]*>/g, '')
      // sanitize-html escapes exactly these in text; `&amp;` last so `&amp;lt;` stays `&lt;`.
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
  );
}

/**
 * Plain text of (any) HTML, for excerpts and titles: tags removed, dropped content gone, entities
 * decoded, one line per block, spaces collapsed.
 */
export function htmlToText(html: string): string {
  return tidyLines(textContent(html));
}

/** Spaces collapsed and lines trimmed, blank lines dropped. */
export function tidyLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/**
 * Rounds of decoding before a value counts as built to get past this function. Text anyone means
 * is encoded at most two or three times (`&amp;lt;`); each round peels one level.
 */
const MAX_DECODING_ROUNDS = 8;

/**
 * A value that is meant as plain text (a title, a name, a hashtag), made so that no step after
 * it can turn it into markup: a page that inserts it unescaped, or code that decodes entities
 * once more. Tags are removed and entities decoded (named, decimal, hex) again and again until
 * nothing changes, so `&lt;script&gt;` and `&amp;lt;img onerror=…&amp;gt;` go the way `<script>`
 * does: the tags go, the text between them stays (as text). What is left has no tag, no comment
 * and no character reference; `<` and `&` stay only where they mean themselves (`a < b`,
 * `Tom & Jerry`). Whitespace is left as it was (a post's blank lines stay), only trimmed.
 */
export function plainText(value: string): string {
  let text = value;
  for (let round = 0; round < MAX_DECODING_ROUNDS; round++) {
    const next = textContent(text, PLAIN_TEXT_OPTIONS);
    if (next === text) return text.trim();
    text = next;
  }
  // Still unfolding after that many rounds: no text anyone wrote. Without `<` and `&` nothing in
  // it can ever become a tag or a reference.
  return text.replace(/[<&]/g, '').trim();
}
