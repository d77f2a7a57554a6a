import { Transform } from 'class-transformer';

/** `30d`, `12h`, `15m`, `90s` or plain seconds, as whole seconds; NaN when unreadable. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(text);
  if (!match) return Number.NaN;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** A comma-separated variable as a list of its non-empty, trimmed items. */
export const AsList = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
      : value,
  );

/** `true` or `1` as true, anything else as false. */
export const AsBoolean = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value === 'true' || value === '1' : value));

/** A duration (`parseDuration`) as whole seconds. */
export const AsDuration = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? parseDuration(value) : value));

/**
 * Comma-separated numbers (`0, 60000,300000`) as a list of numbers (NaN for an unreadable one, which the validators
 * refuse).
 */
export const AsNumberList = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((part) => Number(part.trim())) : value,
  );
