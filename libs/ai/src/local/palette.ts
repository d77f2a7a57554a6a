import { colourDistance, parseHexColour, type Rgb } from '../images/colour.js';
import type { ColourName } from './templates/index.js';

/**
 * Reference shades for each colour name: a colour is named after its nearest reference
 * (CIE76 ΔE), so `#ff0000` and `#b71c1c` are both red and `#1e3a8a` is navy, not blue.
 */
const REFERENCES: Record<ColourName, readonly string[]> = {
  black: ['#000000', '#1c1c1c'],
  white: ['#ffffff', '#f2f2f2'],
  grey: ['#808080', '#b0b0b0', '#505050'],
  red: ['#ff0000', '#d32f2f', '#b71c1c'],
  orange: ['#ff8000', '#f57c00', '#e65100'],
  yellow: ['#ffff00', '#fdd835', '#f9a825'],
  green: ['#00ff00', '#43a047', '#1b5e20', '#8bc34a'],
  teal: ['#008080', '#00897b', '#26a69a'],
  blue: ['#0000ff', '#1e88e5', '#42a5f5', '#00bfff'],
  navy: ['#000080', '#1a237e', '#1e3a8a'],
  purple: ['#800080', '#8e24aa', '#7c3aed', '#ba68c8'],
  pink: ['#ff69b4', '#f48fb1', '#ec407a', '#ffc0cb'],
  brown: ['#8b4513', '#6d4c41', '#a0522d'],
  beige: ['#f5f5dc', '#e8d8b8', '#d7c4a3'],
};

const PARSED = Object.entries(REFERENCES).flatMap(([name, shades]) =>
  shades.map((shade) => ({ name: name as ColourName, rgb: parseHexColour(shade) as Rgb })),
);

/** The palette name nearest to a `#rrggbb` colour, or null when it is not one. */
export function colourName(hex: string): ColourName | null {
  const rgb = parseHexColour(hex);
  if (!rgb) return null;
  let best = PARSED[0];
  let bestDistance = Infinity;
  for (const reference of PARSED) {
    const distance = colourDistance(rgb, reference.rgb);
    if (distance < bestDistance) [best, bestDistance] = [reference, distance];
  }
  return best.name;
}

/** Distinct palette names of the given colours, in order. */
export function colourNames(hexes: readonly string[]): ColourName[] {
  return [...new Set(hexes.map(colourName).filter((name): name is ColourName => name !== null))];
}
