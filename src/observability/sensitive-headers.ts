/**
 * Request header values that must never leave the process through observability: diagnostics
 * channel messages (and the logs built on them) show them as {@link REDACTED}. A tracing tool
 * subscribed to the channels would otherwise record proxy passwords and tokens.
 *
 * `proxy-authorization` is always hidden. A layer that adds secret headers of its own (the proxy
 * interceptor: its `proxy-authorization` and the `headers` option meant for the proxy) names them
 * per request under the {@link SENSITIVE_HEADERS} dispatch option.
 * @module
 */

import type { OutgoingHeaders } from '../contracts/dispatch-contract.js'

/** Dispatch option key: lower-case names of extra request headers whose values must be redacted. */
export const SENSITIVE_HEADERS: unique symbol = Symbol.for('conduit.sensitiveHeaders')

/** What a redacted header value shows instead of the secret. */
export const REDACTED = '[redacted]'

/** Hidden whoever added it: a proxy credential is never meant for an observer. */
const ALWAYS_SENSITIVE = 'proxy-authorization'

/** The names to redact for one request: the default, plus the extra names a layer gave (if any). */
export function sensitiveHeaderNames (extra: unknown): ReadonlySet<string> {
  const names = new Set([ALWAYS_SENSITIVE])
  if (Array.isArray(extra)) {
    for (const name of extra) if (typeof name === 'string') names.add(name.toLowerCase())
  }
  return names
}

function isSensitive (name: unknown, names: ReadonlySet<string>): boolean {
  return typeof name === 'string' && names.has(name.toLowerCase())
}

function redactValue (value: unknown): unknown {
  return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED
}

/**
 * Returns the request headers, in the form the caller gave them, with the values of `names`
 * replaced by {@link REDACTED}. Headers that carry none of them are returned as they are;
 * iterables (Map, Headers) come back as `[name, value]` pairs.
 */
export function redactHeaders (headers: OutgoingHeaders | null | undefined, names: ReadonlySet<string>): OutgoingHeaders | null | undefined {
  if (headers == null || typeof headers !== 'object') return headers
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      const pairs = headers as unknown as Array<[unknown, unknown]>
      if (!pairs.some((pair) => Array.isArray(pair) && isSensitive(pair[0], names))) return headers
      return pairs.map((pair) => Array.isArray(pair) && isSensitive(pair[0], names) ? [pair[0], redactValue(pair[1])] : pair) as unknown as OutgoingHeaders
    }
    const flat = headers as unknown[]
    let copy: unknown[] | null = null
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (!isSensitive(flat[i], names)) continue
      copy ??= [...flat]
      copy[i + 1] = redactValue(flat[i + 1])
    }
    return (copy ?? headers) as OutgoingHeaders
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    const pairs: Array<[unknown, unknown]> = []
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) {
      pairs.push([name, isSensitive(name, names) ? redactValue(value) : value])
    }
    return pairs as unknown as OutgoingHeaders
  }
  const record = headers as Record<string, unknown>
  let copy: Record<string, unknown> | null = null
  for (const name of Object.keys(record)) {
    if (!isSensitive(name, names)) continue
    copy ??= { ...record }
    copy[name] = redactValue(record[name])
  }
  return (copy ?? headers) as OutgoingHeaders
}

/** Returns a serialized request head with the value of every `names` header line replaced by {@link REDACTED}. */
export function redactHead (head: string, names: ReadonlySet<string>): string {
  const lines = head.split('\r\n')
  let changed = false
  // Line 0 is the request line; header names never contain ':', so the first one ends the name.
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string
    const colon = line.indexOf(':')
    if (colon > 0 && names.has(line.slice(0, colon).toLowerCase())) {
      lines[i] = `${line.slice(0, colon)}: ${REDACTED}`
      changed = true
    }
  }
  return changed ? lines.join('\r\n') : head
}
