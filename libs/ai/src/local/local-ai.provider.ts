import type { AiProvider, AiTask } from '../providers/ai-provider.js';

/**
 * `AI_PROVIDER=local` (the default): content generated offline from templates, not by a model, so
 * the service runs with no key and tests get stable answers. Each function's task says how (its
 * `local` part, built from the generators and templates of this folder):
 *
 * - Deterministic: every choice derives from a sha256 of the inputs (see Seed); the same input
 *   always gives the same output.
 * - Languages: a task declares those its templates write (`LOCAL_LANGUAGES`: en, fr, es, de and pt,
 *   by the tag's primary language, so pt-BR and pt-PT use pt); the function refuses any other
 *   before charging. Social research is always English (its request has no language).
 * - Covers are really drawn (renderCover); products are described from the image's colours,
 *   proportions and lightness.
 */
export class LocalAiProvider implements AiProvider {
  readonly id = 'local';

  languagesFor(task: AiTask<unknown, unknown>): readonly string[] | null {
    return task.local.languages ?? null;
  }

  async run<Input, Output>(task: AiTask<Input, Output>, input: Input, signal?: AbortSignal): Promise<Output> {
    signal?.throwIfAborted();
    return task.local.generate(input);
  }
}
