/** Date and time of day of an instant on the wall clocks of `timeZone`. */
function wallClock(
  instant: Date,
  timeZone: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: Date, timeZone: string): number {
  const wall = wallClock(instant, timeZone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return wallAsUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/** The instant the wall clocks of `timeZone` show the given local date and hour (DST gaps move it by the gap). */
function atLocal(year: number, month: number, day: number, hour: number, timeZone: string): Date {
  const naive = Date.UTC(year, month - 1, day, hour);
  let instant = naive - offsetAt(new Date(naive), timeZone);
  // Across a DST change the offset at the guess and at the answer differ: one correction settles it.
  instant = naive - offsetAt(new Date(instant), timeZone);
  return new Date(instant);
}

/**
 * The next time `hour`:00 comes round in the store's time zone, at least `leadMinutes` from `now`
 * (so the merchant has time to schedule it): today's slot if still ahead, else tomorrow's.
 */
export function nextLocalSlot(now: Date, timeZone: string, hour: number, leadMinutes = 30): Date {
  const earliest = now.getTime() + leadMinutes * 60_000;
  for (let days = 0; days < 3; days++) {
    const date = wallClock(new Date(now.getTime() + days * 86_400_000), timeZone);
    const slot = atLocal(date.year, date.month, date.day, hour, timeZone);
    if (slot.getTime() >= earliest) return slot;
  }
  return new Date(earliest);
}
