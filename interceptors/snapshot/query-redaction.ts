/**
 * Secrets in URL queries: the values of parameters named like secrets (`token`, `api_key`,
 * `X-Amz-Signature`...) are written to snapshot files as `[redacted]` and matched by the
 * parameter's name alone, so a recording replays whatever token the run uses.
 * @module
 */

import { REDACTED, isSecretQueryParameter } from '../../src/handler.js'

/** Decides by name whether a query parameter's value is a secret. */
export type QueryParameterTest = (name: string) => boolean

/**
 * The test for the options: named like a secret (the redaction rules) or listed in
 * `redactQueryParameters`, and not listed in `keepQueryParameters`. Lists compare case-insensitively.
 */
export function secretParameterTest (redact: readonly string[], keep: readonly string[]): QueryParameterTest {
  const extra = new Set(redact.map((name) => name.toLowerCase()))
  const kept = new Set(keep.map((name) => name.toLowerCase()))
  return (name) => {
    const lower = name.toLowerCase()
    if (kept.has(lower)) return false
    return extra.has(lower) || isSecretQueryParameter(name)
  }
}

function parameterName (raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    // A malformed escape: the name is tested as written.
    return raw
  }
}

/**
 * `query` (without its `?`) with the value of every secret parameter replaced by `[redacted]`.
 * The rest is kept byte for byte: names, order, separators and the encoding the caller chose.
 * `[` and `]` need no escaping in a query, so the marker reads the same in the URL.
 */
export function redactQuery (query: string, isSecret: QueryParameterTest): string {
  if (query === '') return query
  let changed = false
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=')
    // A parameter without `=` carries no value to hide.
    if (eq <= 0) return part
    const name = part.slice(0, eq)
    if (part.slice(eq + 1) === REDACTED || !isSecret(parameterName(name))) return part
    changed = true
    return `${name}=${REDACTED}`
  })
  return changed ? parts.join('&') : query
}

/** An absolute URL string with its query's secret values redacted (see {@link redactQuery}). */
export function redactUrlQuery (url: string, isSecret: QueryParameterTest): string {
  const question = url.indexOf('?')
  if (question === -1) return url
  const hash = url.indexOf('#', question)
  const end = hash === -1 ? url.length : hash
  const query = url.slice(question + 1, end)
  const redacted = redactQuery(query, isSecret)
  return redacted === query ? url : `${url.slice(0, question + 1)}${redacted}${url.slice(end)}`
}
