/**
 * What the cache accepts from a store's `get` before using it. A store is outside the cache's
 * control (a shared Redis, a file another process wrote, a custom class): a corrupted entry, such
 * as an ETag with CR/LF that would become an `if-none-match` header, must make the cache step
 * aside for that request, never fail it.
 * @module
 */

import type { GetResult } from '../../src/contracts/cache-store.js'
import { INVALID_VALUE_RE, TOKEN_RE } from '../../src/connection/field-syntax.js'
import { describeValue } from '../../src/validation/describe-value.js'

function isFiniteNumber (value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value)
}

function isFieldValue (value: unknown): boolean {
  return typeof value === 'string' && !INVALID_VALUE_RE.test(value)
}

/**
 * Header records already found valid. A store that hands back the same record again (the memory
 * store keeps its own copy and returns it on every hit) is not checked field by field each time;
 * a store that reads an entry from outside (a file, Redis) makes a new record, which is checked.
 */
const validHeaderRecords = new WeakSet<object>()

function headersProblem (headers: unknown, what: string, allowNull: boolean): string | null {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return `${what} must be an object, got ${describeValue(headers)}`
  }
  if (validHeaderRecords.has(headers)) return null
  const problem = fieldsProblem(headers, what, allowNull)
  if (problem === null) validHeaderRecords.add(headers)
  return problem
}

function fieldsProblem (headers: object, what: string, allowNull: boolean): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN_RE.test(name)) return `${what} has an invalid field name ${describeValue(name)}`
    if (value === null && allowNull) continue
    const values: unknown[] = Array.isArray(value) ? value : [value]
    if (!values.every(isFieldValue)) return `${what}.${name} is not a valid field value: ${describeValue(value)}`
  }
  return null
}

function bodyProblem (body: unknown): string | null {
  if (body == null || typeof body === 'string' || Buffer.isBuffer(body)) return null
  if (typeof body === 'object' && (Symbol.iterator in body || Symbol.asyncIterator in body)) return null
  return `body must be a Buffer, a string, a stream or an iterable, got ${describeValue(body)}`
}

/** Why the stored entry cannot be used, or null when it can. */
export function storedEntryProblem (entry: unknown): string | null {
  if (typeof entry !== 'object' || entry === null) return `the entry must be an object, got ${describeValue(entry)}`
  const e = entry as Partial<Record<keyof GetResult, unknown>>
  if (typeof e.statusCode !== 'number' || !Number.isInteger(e.statusCode) || e.statusCode < 200 || e.statusCode > 599) {
    return `statusCode must be an integer from 200 to 599, got ${describeValue(e.statusCode)}`
  }
  if (e.statusMessage !== undefined && !isFieldValue(e.statusMessage)) return `statusMessage is not valid text: ${describeValue(e.statusMessage)}`
  for (const field of ['cachedAt', 'staleAt', 'deleteAt'] as const) {
    if (!isFiniteNumber(e[field])) return `${field} must be a finite number, got ${describeValue(e[field])}`
  }
  if (e.etag !== undefined && !isFieldValue(e.etag)) return `etag is not a valid field value: ${describeValue(e.etag)}`
  if (e.cacheControlDirectives != null && typeof e.cacheControlDirectives !== 'object') {
    return `cacheControlDirectives must be an object, got ${describeValue(e.cacheControlDirectives)}`
  }
  return headersProblem(e.headers, 'headers', false) ??
    (e.vary == null ? null : headersProblem(e.vary, 'vary', true)) ??
    bodyProblem(e.body)
}
