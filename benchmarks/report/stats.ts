/**
 * The statistics every benchmark suite reports with, in one place.
 * @module
 */

/** Median of a non-empty list (the mean of the two middle values for an even count). */
export function median (values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** `lowest–highest` of a non-empty list of ratios, two decimals each. */
export function spreadText (values: readonly number[]): string {
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`
}
