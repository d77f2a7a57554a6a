/**
 * Small sRGB helpers shared by the image analysis, the cover renderer and the local provider's
 * colour names. Channels are 0–255 integers throughout.
 */

export type Rgb = readonly [r: number, g: number, b: number];

const HEX = /^#(?:([0-9a-f]{3})|([0-9a-f]{6}))$/i;

/** `#RGB` or `#RRGGBB` → channels, or null when it is neither. */
export function parseHexColour(value: string): Rgb | null {
  const match = HEX.exec(value.trim());
  if (!match) return null;
  const hex = match[1] ? [...match[1]].map((digit) => digit + digit).join('') : match[2];
  return [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)];
}

/** Channels → lower-case `#rrggbb`. */
export function toHexColour([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((channel) => clampChannel(channel).toString(16).padStart(2, '0')).join('')}`;
}

function clampChannel(value: number): number {
  return Math.min(255, Math.max(0, Math.round(value)));
}

function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance, 0 (black) … 1 (white). */
export function relativeLuminance([r, g, b]: Rgb): number {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio between two colours, 1 … 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** CIE L* scaled to 0 … 1: how light the colour looks, unlike luminance which is physical. */
export function perceivedLightness(rgb: Rgb): number {
  const y = relativeLuminance(rgb);
  const lStar = y <= 216 / 24389 ? y * (24389 / 27) : 116 * Math.cbrt(y) - 16;
  return Math.min(1, Math.max(0, lStar / 100));
}

/** CIE L*a*b* (D65), for perceptual distances between colours. */
export function toLab(rgb: Rgb): [l: number, a: number, b: number] {
  const [r, g, b] = rgb.map(linear);
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const [fx, fy, fz] = [f(x), f(y), f(z)];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIE76 ΔE: about 2.3 is just noticeable, above ~20 the colours read as different. */
export function colourDistance(a: Rgb, b: Rgb): number {
  const [l1, a1, b1] = toLab(a);
  const [l2, a2, b2] = toLab(b);
  return Math.hypot(l1 - l2, a1 - a2, b1 - b2);
}

/** Linear mix: `t` = 0 gives `a`, 1 gives `b`. */
export function mixColours(a: Rgb, b: Rgb, t: number): Rgb {
  return [
    clampChannel(a[0] + (b[0] - a[0]) * t),
    clampChannel(a[1] + (b[1] - a[1]) * t),
    clampChannel(a[2] + (b[2] - a[2]) * t),
  ];
}
