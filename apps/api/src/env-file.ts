/**
 * The file of settings the entry points read, in the working directory. Git ignores it; .env.example lists every
 * setting.
 */
export const ENV_FILE = '.env';

/**
 * Adds the variables of `.env` to process.env, under those already set: a variable of the real
 * environment wins over the file, and no file is fine. Only the entry points call it (the server and
 * its tracing preload, the migrations CLI, the seed script), before anything reads a setting; the
 * tests never do, so a developer's `.env` cannot change what they test.
 */
export function loadEnvFile(file: string = ENV_FILE): void {
  try {
    // Node's own reader: no module to load, which matters in the tracing preload (instrument.ts).
    process.loadEnvFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(
        `${file} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
}
