import { normalizeCover, renderCover, type CoverInput } from '../../images/cover-renderer.js';
import { AiProviderError, type AiTask, type GeneratedImage } from '../../providers/ai-provider.js';

/** Drawing a blog cover. */
export const GENERATE_BLOG_COVER_TASK: AiTask<CoverInput, GeneratedImage> = {
  name: 'generate-blog-cover',
  local: { generate: async (input) => ({ bytes: await renderCover(input) }) },
  openai: {
    kind: 'image',
    prompt: (input) =>
      `A wide blog cover image for an article titled ${JSON.stringify(input.title)}. ` +
      `Style: ${input.style}. Colour palette: ${input.colors.join(', ')}. ` +
      'Leave calm space for a headline; no text, letters or logos in the image.',
  },
};

/** The stored form of any provider's image: a 1200×630 PNG; an image this service cannot read is an unusable answer. */
export async function normalizeCoverImage(image: GeneratedImage): Promise<Buffer> {
  return normalizeCover(image.bytes).catch((error: unknown) => {
    throw new AiProviderError('The AI provider answered an image this service cannot read', 'invalid_answer', {
      cause: error,
    });
  });
}
