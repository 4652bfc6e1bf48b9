/**
 * The `Idempotency-Key` request header (IETF httpapi draft "The Idempotency-Key HTTP Header
 * Field"): one key per request, the same on every attempt, so a server that honours it applies
 * a POST or PATCH once however many times it arrives; with it, such methods may be retried.
 * @module
 */

import { randomUUID } from 'node:crypto'
import { InvalidReturnValueError, copyOptions, describeValue, normalizeHeaders } from '../../src/handler.js'
import type { DispatchOptions } from '../../src/handler.js'

/** Makes the key of one request; its value is sent as a structured-field string. */
export type IdempotencyKeyFactory = (opts: DispatchOptions) => string

const HEADER = 'idempotency-key'
// A structured-field string holds printable ASCII; a quote or backslash would need escaping.
const KEY_RE = /^[\x20-\x7e]+$/

/** The built-in key: a random UUID. */
export const randomIdempotencyKey: IdempotencyKeyFactory = () => randomUUID()

function quoted (key: string): string {
  return `"${key.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/**
 * The options of a request sent with an `Idempotency-Key`: the caller's own key is kept, else
 * one is made. Returns `opts` itself when the caller already set one.
 */
export function withIdempotencyKey (opts: DispatchOptions, make: IdempotencyKeyFactory): DispatchOptions {
  const headers = normalizeHeaders(opts.headers)
  if (headers[HEADER] !== undefined) return opts
  const key: unknown = make(opts)
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    throw new InvalidReturnValueError(`retry(): idempotencyKey must return a non-empty printable ASCII string, got ${describeValue(key)}`)
  }
  headers[HEADER] = quoted(key)
  const keyed = copyOptions(opts)
  keyed.headers = headers
  return keyed
}
