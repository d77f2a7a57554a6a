/**
 * What the rate limit's count of a key is, as this process knows it, and the hits it let through on its
 * own that Redis has not counted yet.
 *
 * Every instance shares each key's count in Redis. Asking Redis on every request costs a round trip and a
 * socket write per request, the largest single item of an authenticated read after the database. So while a
 * key is well below its limit, a process may let up to `localAllowance(limit)` hits through before Redis has
 * counted them (1 % of the limit; none for limits under 100), and sends them together a few milliseconds
 * later ({@link FLUSH_DELAY_MS}), one pipeline for every key. The error this allows is bounded: each instance
 * can let at most its allowance through past the limit before it hears the count, so with N instances at most
 * N % of the limit more requests pass in a window; never more than today for limits under 100, which are
 * counted in Redis on every request. A single instance's RateLimit-Remaining stays exact.
 */

/** The share of a key's limit a process may let through before Redis has counted it. */
export const LOCAL_SHARE = 0.01;

/** How long hits let through locally wait before they are sent to Redis, together. */
export const FLUSH_DELAY_MS = 25;

/** No hit is let through locally this close to the end of its window: it is counted in Redis instead. */
export const WINDOW_MARGIN_MS = 100;

/** How many keys' windows a process keeps; past this, a key is counted in Redis on every request. */
export const MAX_LOCAL_KEYS = 50_000;

/** The hits a process may let through for a key before Redis has counted them. */
export function localAllowance(limit: number): number {
  return Math.floor(limit * LOCAL_SHARE);
}

/** ThrottlerStorage's record of a hit. */
export interface HitRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/** What a flush sends to Redis for one key: its hits and the throttler settings its script needs. */
export interface PendingHits {
  key: string;
  hits: number;
  ttl: number;
  limit: number;
  blockDuration: number;
}

/** One key's window as this process knows it. */
interface KnownWindow {
  /** When the window ends (epoch ms), from Redis's TTL at its last answer. */
  endsAt: number;
  /** The key's count in Redis at its last answer. */
  counted: number;
  /** Hits sent to Redis, not yet answered. */
  sending: number;
  /** Hits let through here, not yet sent. */
  pending: number;
  /** Until when Redis refuses the key (epoch ms; 0 when not): a block outlasts the window it began in. */
  blockedUntil: number;
  ttl: number;
  limit: number;
  blockDuration: number;
}

export class LocalCounts {
  private readonly windows = new Map<string, KnownWindow>();
  /** The keys with hits let through here and not yet sent. */
  private readonly pendingKeys = new Set<string>();
  private lastSweep = 0;

  /**
   * Lets a hit through without Redis when the key's window is known, not near its end, and this process's
   * hits Redis has not confirmed stay within its allowance and the limit: returns its record, with the count as this
   * process knows it. Null when Redis must count the hit.
   */
  admit(key: string, limit: number, now: number): HitRecord | null {
    const window = this.windows.get(key);
    if (window === undefined || window.limit !== limit) return null;
    if (now >= window.endsAt - WINDOW_MARGIN_MS || now < window.blockedUntil) return null;
    const total = window.counted + window.sending + window.pending + 1;
    // Hits Redis has not confirmed (sent or not) stay within the allowance: that is what bounds the error.
    if (window.pending + window.sending >= localAllowance(limit) || total > limit) return null;
    window.pending += 1;
    this.pendingKeys.add(key);
    return {
      totalHits: total,
      timeToExpire: Math.ceil((window.endsAt - now) / 1000),
      isBlocked: false,
      timeToBlockExpire: 0,
    };
  }

  /**
   * The key's hits let through here and not yet sent, now marked as being sent, with `own` more: the
   * request sending them, counted as on its way until Redis answers (`settle` or `drop` with the sum).
   */
  take(key: string, own = 0): number {
    const window = this.windows.get(key);
    if (window === undefined) return 0;
    const hits = window.pending;
    window.pending = 0;
    this.pendingKeys.delete(key);
    window.sending += hits + own;
    return hits;
  }

  /** Every key's hits not yet sent, marked as being sent; windows that have ended are forgotten, hits and all. */
  takeAll(now: number): PendingHits[] {
    const taken: PendingHits[] = [];
    for (const key of this.pendingKeys) {
      const window = this.windows.get(key)!;
      if (now >= window.endsAt) {
        // Redis's window is over: hits let through in it must not count toward the next one.
        this.forget(key);
        continue;
      }
      const hits = this.take(key);
      if (hits > 0)
        taken.push({ key, hits, ttl: window.ttl, limit: window.limit, blockDuration: window.blockDuration });
    }
    return taken;
  }

  /**
   * Records Redis's answer to `sent` hits of the key: its count after them, the window's time left and how
   * long the key stays blocked. A window that ends later than the one known (Redis started a new one)
   * replaces it. Keys whose limit leaves no allowance are not kept: they are counted in Redis every time.
   */
  settle(
    key: string,
    sent: number,
    settings: Omit<PendingHits, 'key' | 'hits'>,
    count: number,
    ttlMs: number,
    now: number,
    blockedMs = 0,
  ) {
    if (localAllowance(settings.limit) === 0) return;
    const endsAt = now + ttlMs;
    const blockedUntil = blockedMs > 0 ? now + blockedMs : 0;
    const window = this.windows.get(key);
    const tolerance = Math.min(1000, settings.ttl / 2);
    if (window === undefined || endsAt > window.endsAt + tolerance || window.limit !== settings.limit) {
      if (window === undefined && this.windows.size >= MAX_LOCAL_KEYS) this.sweep(now);
      if (window === undefined && this.windows.size >= MAX_LOCAL_KEYS) return;
      // A new window: hits let through in the old one are not carried into it.
      this.pendingKeys.delete(key);
      this.windows.set(key, { endsAt, counted: count, sending: 0, pending: 0, blockedUntil, ...settings });
      return;
    }
    window.blockedUntil = Math.max(window.blockedUntil, blockedUntil);
    window.sending = Math.max(0, window.sending - sent);
    window.counted = Math.max(window.counted, count);
  }

  /** Forgets what was being sent for the key (Redis did not answer): those hits go uncounted, as when it is down. */
  drop(key: string, sent: number): void {
    const window = this.windows.get(key);
    if (window !== undefined) window.sending = Math.max(0, window.sending - sent);
  }

  /** Whether any key has hits not yet sent. */
  get hasPending(): boolean {
    return this.pendingKeys.size > 0;
  }

  /** How many keys' windows are known. */
  get size(): number {
    return this.windows.size;
  }

  private forget(key: string): void {
    this.windows.delete(key);
    this.pendingKeys.delete(key);
  }

  /** Forgets the windows that have ended; at most once a second, so a flood of new keys does not rescan each time. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (now >= window.endsAt) this.forget(key);
  }
}
