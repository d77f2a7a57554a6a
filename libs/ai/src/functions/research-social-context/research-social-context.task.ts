import { plainText } from '../../content/html-sanitizer.js';
import { Seed } from '../../local/seed.js';
import { buildInsights } from '../../local/social.js';
import { hashtag, list, object, structuredOutput, text } from '../../openai/schemas.js';
import { unusableAnswer as invalid, type AiTask } from '../../providers/ai-provider.js';
import { distinct, plainTextField, toHashtag } from '../normalize.js';

export interface InsightsInput {
  query: string;
  /** Registered social platform ids. */
  platforms: string[];
}

/** The answer's `insights`. */
export interface InsightsDraft {
  trending_topics: string[];
  popular_hashtags: string[];
  audience_sentiment: string;
  recommendations: string[];
}

export const INSIGHTS_OUTPUT = structuredOutput<InsightsDraft>(
  'social_insights',
  object({
    trending_topics: list(text('A topic people currently talk about.'), 1, 10, 'Trending topics related to the query.'),
    popular_hashtags: list(hashtag, 1, 15, 'Popular hashtags related to the query.'),
    audience_sentiment: text("A short description of the audience's current sentiment about the query."),
    recommendations: list(text('A concrete recommendation.'), 1, 10, 'Recommendations for posting about the query.'),
  }),
);

/** Researching the social media context of a query (always in English: the request has no language). */
export const RESEARCH_SOCIAL_CONTEXT_TASK: AiTask<InsightsInput, InsightsDraft> = {
  name: 'research-social-context',
  local: {
    generate: (input) => {
      const platforms = [...new Set(input.platforms)].sort();
      return buildInsights(input, Seed.of('insights', input.query.trim().toLowerCase(), ...platforms));
    },
  },
  openai: {
    kind: 'chat',
    output: INSIGHTS_OUTPUT,
    system:
      'You are a social media analyst helping an online store plan ' +
      'its posts. Answer with the JSON object the schema describes.',
    user: (input) =>
      [
        'Summarise the social media context of this query for the listed platforms: trending topics, popular ' +
          'hashtags (each beginning with #), the audience sentiment and recommendations.',
        `Request: ${JSON.stringify({ query: input.query, platforms: input.platforms })}`,
      ].join('\n'),
  },
};

/** The answer's rules, whichever provider wrote it: plain-text items, `#` hashtags, no empty list. */
export function normalizeInsights(draft: InsightsDraft): InsightsDraft {
  const insights = {
    trending_topics: distinct(draft.trending_topics, 'trending_topics', plainText),
    popular_hashtags: distinct(draft.popular_hashtags, 'popular_hashtags', toHashtag),
    audience_sentiment: plainTextField(draft.audience_sentiment, 'audience_sentiment'),
    recommendations: distinct(draft.recommendations, 'recommendations', plainText),
  };
  if (!insights.trending_topics.length || !insights.popular_hashtags.length || !insights.recommendations.length) {
    throw invalid('an insights list is empty');
  }
  return insights;
}
