import { htmlToText, sanitizeArticleHtml } from './html-sanitizer.js';

/** What must never survive sanitising, whatever the input. */
function expectHarmless(html: string) {
  expect(html).not.toMatch(/<\s*(script|style|iframe|img|svg|object|embed|form|input|meta|link|base|math|textarea)/i);
  expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/\sstyle\s*=/i);
  expect(html).not.toMatch(/javascript:|vbscript:|data:/i);
}

describe('sanitizeArticleHtml', () => {
  it('keeps the article markup it allows', () => {
    const html =
      '<h2>Care</h2><h3>Washing</h3><h4>Drying</h4><p>Use <strong>cold</strong> water, <em>gentle</em> ' +
      '<b>soap</b> and <i>patience</i>.<br>Then ' +
      'dry.</p><ul><li>One</li></ul><ol><li>Two</li></ol><blockquote>Quote</blockquote><pre><code>x &lt; ' +
      'y</code></pre><hr>';
    expect(sanitizeArticleHtml(html)).toBe(
      '<h2>Care</h2><h3>Washing</h3><h4>Drying</h4><p>Use <strong>cold</strong> water, <em>gentle</em> ' +
        '<b>soap</b> and <i>patience</i>.<br />Then ' +
        'dry.</p><ul><li>One</li></ul><ol><li>Two</li></ol><blockquote>Quote</blockquote><pre><code>x &lt; ' +
        'y</code></pre><hr />',
    );
  });

  it('drops <script> and <style> with their content', () => {
    const out = sanitizeArticleHtml(
      '<p>Hi</p><script>alert(document.cookie)</script><style>body{display:none}</style><p>there</p>',
    );
    expect(out).toBe('<p>Hi</p><p>there</p>');
  });

  it('drops event handlers and style attributes but keeps the text', () => {
    const out = sanitizeArticleHtml(
      '<p onclick="steal()" style="color:red" class="x" id="y">Click</p><h2 onmouseover=alert(1)>Title</h2>',
    );
    expect(out).toBe('<p>Click</p><h2>Title</h2>');
  });

  it('drops <img src=x onerror=…>, <iframe> and <svg onload>', () => {
    const out = sanitizeArticleHtml(
      '<p>a<img src=x onerror=alert(1)>b</p><iframe ' +
        'src="https://evil.example"></iframe><svg onload=alert(1)><circle/></svg><p>c</p>',
    );
    expect(out).toBe('<p>ab</p><p>c</p>');
  });

  it('keeps http, https and mailto links with rel forced, and strips other schemes', () => {
    expect(sanitizeArticleHtml('<a href="https://example.com/x" target="_blank" rel="opener">ok</a>')).toBe(
      '<a href="https://example.com/x" rel="noopener nofollow">ok</a>',
    );
    expect(sanitizeArticleHtml('<a href="mailto:shop@example.com">mail</a>')).toBe(
      '<a href="mailto:shop@example.com" rel="noopener nofollow">mail</a>',
    );
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java&#x09;script:alert(1)',
      '&#106;avascript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox(1)',
      '//evil.example/x',
    ]) {
      const out = sanitizeArticleHtml(`<a href="${href}">x</a>`);
      expect(out).toBe('<a rel="noopener nofollow">x</a>');
    }
  });

  it('survives nested and malformed markup', () => {
    const vectors = [
      '<scr<script>ipt>alert(1)</scr</script>ipt>',
      '<<script>script>alert(1)<</script>/script>',
      '<p><a href="https://ok.example"><script>alert(1)</script>x</a>',
      '<div><p>unclosed <strong>bold <em>both</p>',
      '<img """><script>alert(1)</script>">',
      '<a href="javas\ncript:alert(1)">x</a>',
      '<svg><style><img src=x onerror=alert(1)></style></svg>',
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
      '<p style="background:url(javascript:alert(1))">x</p>',
      '<form action="javascript:alert(1)"><input type=submit></form>',
      '<base href="javascript:alert(1)//">',
      '<!--<img src=x onerror=alert(1)>-->',
    ];
    for (const vector of vectors) expectHarmless(sanitizeArticleHtml(vector));
    // Text around dropped tags is kept and the output is well-formed.
    expect(sanitizeArticleHtml('<div><p>unclosed <strong>bold <em>both</p>')).toBe(
      '<p>unclosed <strong>bold <em>both</em></strong></p>',
    );
  });

  it('escapes text that looks like markup', () => {
    expect(sanitizeArticleHtml('<p>1 &lt; 2 &amp; "quotes"</p>')).toBe('<p>1 &lt; 2 &amp; "quotes"</p>');
  });

  it('is idempotent', () => {
    const once = sanitizeArticleHtml('<p onclick=x>a <a href="https://e.example">b</a><script>c</script></p>');
    expect(sanitizeArticleHtml(once)).toBe(once);
  });
});

describe('htmlToText', () => {
  it('gives plain text, one line per block, entities decoded, dangerous content gone', () => {
    const text = htmlToText(
      '<h2>Title &amp; more</h2><p>First  <strong>para</strong>.<br>Next ' +
        'line</p><script>alert(1)</script><ul><li>a &lt; b</li></ul>',
    );
    expect(text).toBe('Title & more\nFirst para.\nNext line\na < b');
  });

  it('keeps words of adjacent blocks apart and handles plain text', () => {
    expect(htmlToText('<p>one</p><p>two</p>')).toBe('one\ntwo');
    expect(htmlToText('  just   text  ')).toBe('just text');
    expect(htmlToText('')).toBe('');
  });
});
