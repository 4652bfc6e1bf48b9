/**
 * Reading one value of a response field that a handler may have received as a list.
 * @module
 */

/** The field's first value: the one a validator or a length is read from when the field repeats. */
export function firstHeaderValue (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
