/**
 * The request as undici's diagnostics messages show it: the fields undici's own `Request` has
 * and tracing tools read (`origin`, `method`, `path`, `headers` as a flat name/value list,
 * `completed`, `aborted`...), and a working `addHeader()`. It is a view, not the request: through
 * the request a subscriber would reach the connection and the raw bytes on the wire, and
 * credential values (`proxy-authorization`, the names a layer marked sensitive) are redacted
 * here as on the `conduit:*` channels.
 * @module
 */

import type { IncomingHeaders, OutgoingHeaders } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError } from '../errors.js'
import { isHeadersIterable } from '../handlers/request-headers.js'
import { isCredentialHeader, REDACTED } from './redaction.js'

/** What the view reads live from the request it shows. */
export interface UndiciViewedRequest {
  /** Set once the handler got its final call. */
  readonly completed: boolean
  /** Set once the request was aborted. */
  readonly aborted: boolean
}

/** Header names undici keeps out of `request.headers` (it holds them in fields of their own). */
const KEPT_APART = new Set(['host', 'content-length'])

/**
 * Names a subscriber may not add: they frame the message or route it, and the transport sets
 * them from the request itself (undici refuses them too).
 */
const NOT_ADDABLE = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te'])

// RFC 9110 token and field-value rules: what `addHeader` accepts is what the wire may carry.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/** Constructor input of {@link UndiciRequestView}. */
export interface UndiciViewInit {
  /** The origin, as `URL.origin` gives it (no user information). */
  origin: string
  /** The normalized method. */
  method: string
  /** The request target, query included. */
  path: string
  /** The headers as the caller gave them. */
  headers: OutgoingHeaders | null | undefined
  /** Lower-case names whose values are shown as `[redacted]`, besides the credential headers. */
  sensitive: ReadonlySet<string>
  idempotent: boolean
  blocking: boolean
  upgrade: string | null
  expectContinue: boolean
  servername: string | null
}

/** The request object of every `undici:*` request message. */
export class UndiciRequestView {
  /** The origin the request goes to. */
  readonly origin: string
  /** Request method. */
  readonly method: string
  /** Request target with the query. */
  readonly path: string
  /** The request headers as a flat `[name, value, name, value...]` list, credentials redacted. */
  readonly headers: Array<string | string[]>
  /** The `host` header the caller set, or null for the origin's. */
  readonly host: string | null
  /** True when the request may be sent again. */
  readonly idempotent: boolean
  /** True when the request blocks the pipeline. */
  readonly blocking: boolean
  /** The upgrade protocol, or null. */
  readonly upgrade: string | null
  /** Whether the request waits for `100 Continue`. */
  readonly expectContinue: boolean
  /** The TLS server name, or null. */
  readonly servername: string | null
  readonly #request: UndiciViewedRequest
  /** Headers added by subscribers, for the wire; null while none was. */
  #added: Array<[string, string]> | null = null

  constructor (request: UndiciViewedRequest, init: UndiciViewInit) {
    this.#request = request
    this.origin = init.origin
    this.method = init.method
    this.path = init.path
    const { list, host } = flatHeaders(init.headers, init.sensitive)
    this.headers = list
    this.host = host
    this.idempotent = init.idempotent
    this.blocking = init.blocking
    this.upgrade = init.upgrade
    this.expectContinue = init.expectContinue
    this.servername = init.servername
  }

  /** Set once the request got its final call. */
  get completed (): boolean {
    return this.#request.completed
  }

  /** Set once the request was aborted. */
  get aborted (): boolean {
    return this.#request.aborted
  }

  /**
   * Adds a request header. Called while the `undici:request:create` message is delivered, the
   * header goes on the wire with the request (this is how tracing tools propagate
   * `traceparent`); later, only the view shows it, as with undici.
   */
  addHeader (name: string, value: string): this {
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new InvalidArgumentError(`addHeader: invalid header name ${JSON.stringify(String(name))}`)
    }
    if (NOT_ADDABLE.has(name.toLowerCase())) {
      throw new InvalidArgumentError(`addHeader: the ${name} header is set by the transport and cannot be added`)
    }
    const text = String(value)
    if (!FIELD_VALUE.test(text)) {
      throw new InvalidArgumentError(`addHeader: invalid value for header ${JSON.stringify(name)}`)
    }
    this.headers.push(name, text)
    ;(this.#added ??= []).push([name, text])
    return this
  }

  /** Takes the headers subscribers added since the last call (null when none). */
  takeAddedHeaders (): Array<[string, string]> | null {
    const added = this.#added
    this.#added = null
    return added
  }
}

function shown (name: string, value: unknown, sensitive: ReadonlySet<string>): string | string[] {
  if (isCredentialHeader(name) || sensitive.has(name.toLowerCase())) return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED
  return Array.isArray(value) ? value.map(String) : String(value)
}

/** The caller's headers as undici lists them: in order, `undefined` dropped, host held apart. */
function flatHeaders (headers: OutgoingHeaders | null | undefined, sensitive: ReadonlySet<string>): { list: Array<string | string[]>, host: string | null } {
  const list: Array<string | string[]> = []
  let host: string | null = null
  const add = (name: unknown, value: unknown): void => {
    if (value === undefined || typeof name !== 'string') return
    const lower = name.toLowerCase()
    if (KEPT_APART.has(lower)) {
      if (lower === 'host') host = String(value)
      return
    }
    list.push(name, shown(name, value === null ? '' : value, sensitive))
  }
  if (headers == null || typeof headers !== 'object') return { list, host }
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[unknown, unknown]>) add(pair[0], pair[1])
    } else {
      for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i], headers[i + 1])
    }
  } else if (isHeadersIterable(headers)) {
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) add(name, value)
  } else {
    for (const name of Object.keys(headers)) add(name, (headers as Record<string, unknown>)[name])
  }
  return { list, host }
}

/** Response headers (or trailers) as undici publishes them: a flat list of name and value Buffers. */
export function rawHeaderList (headers: IncomingHeaders): Buffer[] {
  const raw: Buffer[] = []
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    const key = Buffer.from(name, 'latin1')
    if (Array.isArray(value)) for (const v of value) raw.push(key, Buffer.from(v, 'latin1'))
    else raw.push(key, Buffer.from(String(value), 'latin1'))
  }
  return raw
}
