import { createHash } from 'node:crypto';

/**
 * Deterministic choices for the offline provider: every choice hashes the inputs' digest with a
 * label of its own (sha256), so the same input always gives the same output, and adding a choice
 * in one place never shifts the others. No Math.random, no clock.
 */
export class Seed {
  private constructor(private readonly digest: Buffer) {}

  /** A seed from any inputs; strings and buffers are length-prefixed so ("ab","c") ≠ ("a","bc"). */
  static of(...parts: (string | Buffer)[]): Seed {
    const hash = createHash('sha256');
    for (const part of parts) {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      hash.update(`${bytes.length}:`).update(bytes);
    }
    return new Seed(hash.digest());
  }

  /** An integer in [0, n). */
  int(label: string, n: number): number {
    if (n <= 1) return 0;
    return createHash('sha256').update(this.digest).update(label).digest().readUIntBE(0, 6) % n;
  }

  /** A number in [0, 1). */
  fraction(label: string): number {
    return createHash('sha256').update(this.digest).update(label).digest().readUIntBE(0, 6) / 2 ** 48;
  }

  pick<T>(label: string, items: readonly T[]): T {
    return items[this.int(label, items.length)];
  }

  /** A copy of `items` in a seeded order (Fisher–Yates). */
  shuffle<T>(label: string, items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(`${label}#${i}`, i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
