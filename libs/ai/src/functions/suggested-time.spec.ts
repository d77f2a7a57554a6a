import { nextLocalSlot } from './suggested-time.js';

const local = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', dateStyle: 'short', timeStyle: 'short' }).format(
    instant,
  );

describe('nextLocalSlot', () => {
  it("answers today's slot when it is still ahead by the lead time", () => {
    const now = new Date('2026-11-22T08:00:00Z'); // 09:00 in Paris (UTC+1)
    const slot = nextLocalSlot(now, 'Europe/Paris', 13);
    expect(slot.toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(local(slot, 'Europe/Paris')).toBe('22/11/2026, 13:00');
  });

  it("moves to tomorrow when today's slot is past or closer than the lead time", () => {
    expect(nextLocalSlot(new Date('2026-11-22T12:40:00Z'), 'UTC', 13).toISOString()).toBe('2026-11-23T13:00:00.000Z');
    expect(nextLocalSlot(new Date('2026-11-22T14:00:00Z'), 'UTC', 13).toISOString()).toBe('2026-11-23T13:00:00.000Z');
  });

  it('counts the day in the store zone, not in UTC', () => {
    // 23:30 UTC on the 22nd is already 08:30 on the 23rd in Tokyo.
    const slot = nextLocalSlot(new Date('2026-11-22T23:30:00Z'), 'Asia/Tokyo', 11);
    expect(local(slot, 'Asia/Tokyo')).toBe('23/11/2026, 11:00');
    expect(slot.toISOString()).toBe('2026-11-23T02:00:00.000Z');
  });

  it('handles zones with half-hour offsets and DST changes', () => {
    const kolkata = nextLocalSlot(new Date('2026-11-22T00:00:00Z'), 'Asia/Kolkata', 9);
    expect(local(kolkata, 'Asia/Kolkata')).toBe('22/11/2026, 09:00');
    // New York leaves DST on 2026-11-01 at 02:00: 09:00 that day is UTC-5.
    const fallBack = nextLocalSlot(new Date('2026-11-01T05:00:00Z'), 'America/New_York', 9);
    expect(fallBack.toISOString()).toBe('2026-11-01T14:00:00.000Z');
    // 09:00 on 2026-03-08 (the day DST starts) is UTC-4.
    const springForward = nextLocalSlot(new Date('2026-03-08T05:00:00Z'), 'America/New_York', 9);
    expect(springForward.toISOString()).toBe('2026-03-08T13:00:00.000Z');
  });

  it('is always in the future by at least the lead time', () => {
    const now = new Date();
    for (const zone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Australia/Lord_Howe']) {
      for (let hour = 0; hour < 24; hour++) {
        const slot = nextLocalSlot(now, zone, hour);
        expect(slot.getTime()).toBeGreaterThanOrEqual(now.getTime() + 30 * 60_000);
        expect(slot.getTime()).toBeLessThanOrEqual(now.getTime() + 49 * 3600_000);
      }
    }
  });
});
