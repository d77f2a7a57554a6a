import twitterText from 'twitter-text';

/**
 * X's weighted text length in time linear in the text.
 *
 * twitter-text's `parseTweet` is what X's own clients count with, but its URL extraction is
 * quadratic, for some inputs cubic, on long runs without whitespace (`'a.'` repeated 30,000 times
 * took seconds). A URL and an emoji never span whitespace, so the text is weighed in chunks of at
 * most CHUNK code units cut at whitespace: each chunk through `parseTweet`, which makes the sum equal
 * to `parseTweet` of the whole text while bounding what one call costs. A run without whitespace longer
 * than CHUNK (a long link, or junk) is weighed by `longRunWeight`. Counting stops once the total passes
 * `stopAbove`: the answer is then a number above `stopAbove`, not necessarily the whole length.
 */

/** The most code units one `parseTweet` call is given. */
const CHUNK = 256;
interface WeightConfig {
  scale: number;
  defaultWeight: number;
  transformedURLLength: number;
  ranges: { start: number; end: number; weight: number }[];
}
/** The weights `parseTweet` counts with (its typings leave `configs` out). */
const WEIGHTS = (twitterText as unknown as { configs: { defaults: WeightConfig } }).configs.defaults;
const { scale, defaultWeight, ranges } = WEIGHTS;
/** What any URL counts, and the longest URL X takes (twitter-text's limits). */
const URL_WEIGHT = WEIGHTS.transformedURLLength;
const MAX_URL_LENGTH = 4096;
/** The longest host taken in a long run: a DNS name has at most 253 characters. */
const MAX_HOST_LENGTH = 253;

/** Runs of whitespace (as twitter-text counts it) and runs of anything else. */
const SPACES = twitterText.regexen.spacesGroup.source;
const RUNS = new RegExp(`[${SPACES}]+|[^${SPACES}]+`, 'g');
const SPACE = new RegExp(`^[${SPACES}]`);
const PROTOCOL = /https?:\/\//gi;
/** twitter-text's URL pattern, tried at one position only (sticky), so one attempt costs one pass. */
const URL_AT = new RegExp(twitterText.regexen.extractUrl.source, 'iy');
/** What ends a host in twitter-text's pattern: its punctuation, less `.`, `-` and `_`. */
const HOST_END = /[!'#%&()*+,/:;<=>?@[\\\]^{|}~$]/;

/** The weighted length of `text` on X, as `parseTweet` counts it; see above for `stopAbove`. */
export function xWeightedLength(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  const normalized = text.normalize('NFC');
  if (normalized.length <= CHUNK) return twitterText.parseTweet(normalized).weightedLength;
  let total = 0;
  let chunk = '';
  const flush = () => {
    if (chunk) total += twitterText.parseTweet(chunk).weightedLength;
    chunk = '';
  };
  for (const [run] of normalized.matchAll(RUNS)) {
    if (chunk.length + run.length > CHUNK) flush();
    if (run.length <= CHUNK) chunk += run;
    else if (SPACE.test(run)) total += charWeights(run, 0, run.length, stopAbove - total);
    else total += longRunWeight(run, stopAbove - total);
    if (total > stopAbove) return total;
  }
  flush();
  return total;
}

/**
 * A run without whitespace longer than CHUNK: every `http(s)://` link twitter-text's pattern takes
 * at that position counts 23, the rest by character. Unlike `parseTweet`, a link without `http(s)://`
 * and an emoji sequence of several code points are counted by character here (an emoji sequence then
 * counts 2 per code point rather than 2); an ordinary post never has such a run.
 * Counting stops once the weight passes `stopAbove`.
 */
function longRunWeight(run: string, stopAbove: number): number {
  let weight = 0;
  let counted = 0;
  PROTOCOL.lastIndex = 0;
  for (let found = PROTOCOL.exec(run); found && weight <= stopAbove; found = PROTOCOL.exec(run)) {
    const start = found.index;
    const length = urlLengthAt(run, start, found[0].length);
    if (length === 0) continue;
    const end = start + length;
    // A link longer than X takes is no link: its characters count, and no link starts inside it.
    weight +=
      length + found[0].length <= MAX_URL_LENGTH
        ? charWeights(run, counted, start, stopAbove - weight) + URL_WEIGHT
        : charWeights(run, counted, end, stopAbove - weight);
    counted = end;
    PROTOCOL.lastIndex = end;
  }
  return weight <= stopAbove ? weight + charWeights(run, counted, run.length, stopAbove - weight) : weight;
}

/** The length of the link twitter-text's pattern takes at `start` (0 when none), its host at most 253 characters. */
function urlLengthAt(run: string, start: number, protocolLength: number): number {
  const hostStart = start + protocolLength;
  let hostEnd = hostStart;
  while (hostEnd < run.length && !HOST_END.test(run[hostEnd]!)) {
    if (++hostEnd - hostStart > MAX_HOST_LENGTH) return 0;
  }
  URL_AT.lastIndex = start === 0 ? 0 : start - 1;
  const match = URL_AT.exec(run);
  // $2 is the character before the link (none at the start), $3 the link, $4 its protocol.
  if (!match || !match[4] || match.index + match[2]!.length !== start) return 0;
  return match[3]!.length;
}

/**
 * The weight of `text[from, to)` character by character, as twitter-text weighs a character outside
 * links and emoji; it stops once the weight passes `stopAbove`.
 */
function charWeights(text: string, from: number, to: number, stopAbove: number): number {
  const stop = stopAbove * scale;
  let weight = 0;
  for (let index = from; index < to && weight <= stop; index++) {
    const code = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    // A surrogate pair is one character, weighed by its first half (outside every range: the default).
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff && index + 1 < to) index++;
    weight += ranges.find((range) => code >= range.start && code <= range.end)?.weight ?? defaultWeight;
  }
  return weight / scale;
}

/**
 * twitter-text's patterns (every top-level domain, every emoji) are compiled on their first use,
 * which takes tens of milliseconds; they are compiled as this module loads, at start, rather than
 * by the first post a request checks. V8 compiles a pattern once for one-byte (Latin-1) and once for
 * two-byte text, to machine code on its second run: each kind is weighed twice, short and long.
 */
for (let round = 0; round < 2; round++) {
  for (const extra of ['', '中文 😀 ']) {
    xWeightedLength(`${extra}Warm up: https://example.com/a?b=c example.org #tag @name`);
    xWeightedLength(`${`${extra}https://example.com/path `.repeat(12)}${'https://example.com/'.repeat(20)}${extra}`);
  }
}
