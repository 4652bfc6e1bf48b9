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

/**
 * What the view reads from the request it shows. The view copies nothing when it is made: most
 * subscribers read a few fields of a few events, so each field is read from the request when
 * asked for, and the header list is made on its first read.
 */
export interface UndiciViewedRequest {
  /** The origin, as `URL.origin` gives it (no user information). */
  readonly origin: string
  /** The normalized method. */
  readonly method: string
  /** The request target, query included. */
  readonly path: string
  /** The headers as the caller gave them. */
  readonly headers: OutgoingHeaders | null | undefined
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
  /** Set once the handler got its final call. */
  readonly completed: boolean
  /** Set once the request was aborted. */
  readonly aborted: boolean
  /** Lower-case names whose values are shown as `[redacted]`, besides the credential headers. */
  sensitiveNames (): ReadonlySet<string>
  /**
   * Puts a header (checked by `addHeader`) on the wire after the caller's ones, while the
   * request can still take one (while its `undici:request:create` message is delivered);
   * a no-op later.
   */
  appendField (name: string, value: string): void
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

/**
 * Names `addHeader` accepted before. A tracing tool adds the same one or two names to every
 * request (`traceparent`, `tracestate`), so each is checked once, not once per request. Bounded:
 * a subscriber that makes up names does not grow it without end.
 */
const ADDED_NAMES = new Set<string>()
const ADDED_NAMES_MAX = 64

/** Throws unless `name` is a token a subscriber may add; remembers it in {@link ADDED_NAMES}. */
function acceptName (name: unknown): void {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new InvalidArgumentError(`addHeader: invalid header name ${JSON.stringify(String(name))}`)
  }
  if (NOT_ADDABLE.has(name.toLowerCase())) {
    throw new InvalidArgumentError(`addHeader: the ${name} header is set by the transport and cannot be added`)
  }
  if (ADDED_NAMES.size < ADDED_NAMES_MAX) ADDED_NAMES.add(name)
}

/** The request object of every `undici:*` request message. */
export class UndiciRequestView {
  readonly #request: UndiciViewedRequest
  /** The header list, once a subscriber read it. */
  #headers: Array<string | string[]> | null = null
  /** The caller's `host` header, found while making {@link headers}. */
  #host: string | null = null
  /** Headers added before the list was made, appended when it is. */
  #added: string[] | null = null

  constructor (request: UndiciViewedRequest) {
    this.#request = request
  }

  /** The origin the request goes to. */
  get origin (): string { return this.#request.origin }
  /** Request method. */
  get method (): string { return this.#request.method }
  /** Request target with the query. */
  get path (): string { return this.#request.path }
  /** True when the request may be sent again. */
  get idempotent (): boolean { return this.#request.idempotent }
  /** True when the request blocks the pipeline. */
  get blocking (): boolean { return this.#request.blocking }
  /** The upgrade protocol, or null. */
  get upgrade (): string | null { return this.#request.upgrade }
  /** Whether the request waits for `100 Continue`. */
  get expectContinue (): boolean { return this.#request.expectContinue }
  /** The TLS server name, or null. */
  get servername (): string | null { return this.#request.servername }
  /** Set once the request got its final call. */
  get completed (): boolean { return this.#request.completed }
  /** Set once the request was aborted. */
  get aborted (): boolean { return this.#request.aborted }

  /**
   * The request headers as a flat `[name, value, name, value...]` list, credentials redacted,
   * followed by the ones subscribers added. Made on first read; the same list every read.
   */
  get headers (): Array<string | string[]> {
    return this.#headers ?? this.#listHeaders()
  }

  /** The `host` header the caller set, or null for the origin's. */
  get host (): string | null {
    if (this.#headers === null) this.#listHeaders()
    return this.#host
  }

  #listHeaders (): Array<string | string[]> {
    const list: Array<string | string[]> = []
    const request = this.#request
    if (request.headers != null) this.#host = flatHeaders(request.headers, request.sensitiveNames(), list)
    if (this.#added !== null) for (const item of this.#added) list.push(item)
    this.#added = null
    this.#headers = list
    return list
  }

  /**
   * Adds a request header. Called while the `undici:request:create` message is delivered, the
   * header goes on the wire with the request (this is how tracing tools propagate
   * `traceparent`); later, only the view shows it, as with undici.
   */
  addHeader (name: string, value: string): this {
    if (!ADDED_NAMES.has(name)) acceptName(name)
    const text = typeof value === 'string' ? value : String(value)
    if (!FIELD_VALUE.test(text)) {
      throw new InvalidArgumentError(`addHeader: invalid value for header ${JSON.stringify(name)}`)
    }
    if (this.#headers !== null) this.#headers.push(name, text)
    else if (this.#added === null) this.#added = [name, text]
    else this.#added.push(name, text)
    this.#request.appendField(name, text)
    return this
  }
}

function shown (name: string, value: unknown, sensitive: ReadonlySet<string>): string | string[] {
  if (isCredentialHeader(name) || sensitive.has(name.toLowerCase())) return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED
  return Array.isArray(value) ? value.map(String) : String(value)
}

/** Appends header `name` to `list` as undici lists it: `undefined` dropped, host held apart (returned), credentials redacted. */
function addListed (list: Array<string | string[]>, name: unknown, value: unknown, sensitive: ReadonlySet<string>, host: string | null): string | null {
  if (value === undefined || typeof name !== 'string') return host
  const lower = name.toLowerCase()
  if (KEPT_APART.has(lower)) return lower === 'host' ? String(value) : host
  list.push(name, shown(name, value === null ? '' : value, sensitive))
  return host
}

/** Fills `list` with the caller's headers as undici lists them, in order; returns the caller's `host`, or null. */
function flatHeaders (headers: OutgoingHeaders | null | undefined, sensitive: ReadonlySet<string>, list: Array<string | string[]>): string | null {
  let host: string | null = null
  if (headers == null || typeof headers !== 'object') return host
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[unknown, unknown]>) host = addListed(list, pair[0], pair[1], sensitive, host)
    } else {
      for (let i = 0; i + 1 < headers.length; i += 2) host = addListed(list, headers[i], headers[i + 1], sensitive, host)
    }
  } else if (isHeadersIterable(headers)) {
    for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) host = addListed(list, name, value, sensitive, host)
  } else {
    const record = headers as Record<string, unknown>
    for (const name of Object.keys(record)) host = addListed(list, name, record[name], sensitive, host)
  }
  return host
}

/**
 * The `response` of an `undici:request:headers` message. Its header list (Buffers, as undici
 * publishes its raw headers) is made, with credentials redacted, when a subscriber first reads
 * it: most tracing subscribers read the status only. Read it while the message is delivered;
 * handlers further on may change the headers it is made from.
 */
export class UndiciResponseView {
  /** The response status. */
  readonly statusCode: number
  /** The reason phrase (empty over HTTP/2). */
  readonly statusText: string
  readonly #source: IncomingHeaders
  #headers: Buffer[] | null = null

  constructor (statusCode: number, statusText: string, headers: IncomingHeaders) {
    this.statusCode = statusCode
    this.statusText = statusText
    this.#source = headers
  }

  /** The response headers as a flat list of name and value Buffers, credentials redacted. */
  get headers (): Buffer[] {
    this.#headers ??= rawHeaderList(this.#source)
    return this.#headers
  }
}

/**
 * Response headers (or trailers) as undici publishes them: a flat list of name and value Buffers,
 * credential values redacted. One pass over the record and no copy of it: a traced request makes
 * this list for its trailers, and most responses end with none.
 */
export function rawHeaderList (headers: IncomingHeaders): Buffer[] {
  const raw: Buffer[] = []
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue
    const value = headers[name]
    if (value === undefined) continue
    const key = Buffer.from(name, 'latin1')
    const hidden = isCredentialHeader(name)
    if (Array.isArray(value)) for (const v of value) raw.push(key, Buffer.from(hidden ? REDACTED : v, 'latin1'))
    else raw.push(key, Buffer.from(hidden ? REDACTED : String(value), 'latin1'))
  }
  return raw
}
