/**
 * How error messages show a bad value: strings quoted (so `"5"` differs from `5`), objects by
 * their kind, everything else as written.
 * @module
 */

/** Longest string shown whole in an error message; longer ones are cut and their length given. */
export const MAX_SHOWN_CHARS = 200

/** Renders `value` for an error message, e.g. `"5"`, `-1`, `null`, `[object Array]`, `[function log]`. */
export function describeValue (value: unknown): string {
  // A string can be user data of any size (a form field, a body); the start identifies it.
  if (typeof value === 'string') {
    return value.length > MAX_SHOWN_CHARS ? `${JSON.stringify(value.slice(0, MAX_SHOWN_CHARS))}... (${value.length} characters)` : JSON.stringify(value)
  }
  if (value !== null && typeof value === 'object') return Object.prototype.toString.call(value)
  // A function's source can be long and multi-line; its name is what identifies it.
  if (typeof value === 'function') return `[function ${value.name === '' ? '(anonymous)' : value.name}]`
  return String(value)
}

/**
 * Renders `value` by its kind, an array with its items: `"5"`, `-1`, `null`, `an array ([503,700])`,
 * `an object`, `a function`. The wording of the retry options' messages.
 */
export function describeValueWithItems (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return `an array (${JSON.stringify(value)})`
  if (value === null) return 'null'
  if (typeof value === 'object') return 'an object'
  return String(value)
}

/**
 * Renders `value` by its kind only: `"5"`, `-1`, `null`, `an array`, `object`, `function`. The
 * wording of the snapshot options' messages.
 */
export function describeValueKind (value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' || typeof value === 'function' ? typeof value : String(value)
}
