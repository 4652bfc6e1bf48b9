/**
 * How error messages show a bad value: strings quoted (so `"5"` differs from `5`), objects by
 * their kind, everything else as written.
 * @module
 */

/** Renders `value` for an error message, e.g. `"5"`, `-1`, `null`, `[object Array]`, `[function log]`. */
export function describeValue (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value !== null && typeof value === 'object') return Object.prototype.toString.call(value)
  // A function's source can be long and multi-line; its name is what identifies it.
  if (typeof value === 'function') return `[function ${value.name === '' ? '(anonymous)' : value.name}]`
  return String(value)
}
