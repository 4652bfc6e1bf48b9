/**
 * Call history of a mock agent: one {@link MockCallHistoryLog} per dispatched request, with filters.
 * @module
 */

import { describeUrl } from '../observability/redaction.js'
import { InvalidArgumentError } from '../errors.js'
import type { DispatchOptions, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { normalizeHeaders } from '../handlers/request-headers.js'
import { bodyText, isBufferedBody } from '../replay/request-body.js'
import { serializePathWithQuery } from '../replay/path-with-query.js'
import { describeValue } from '../validation/describe-value.js'
import type * as filters from './mock-call-filters.js'
import type { FilterCallsObjectCriteria, FilterCallsOptions, FilterCallsParameter, MockCallHistoryFilterField } from './mock-call-filters.js'

export type { FilterCallsObjectCriteria, FilterCallsOptions, FilterCallsParameter, MockCallHistoryFilterField } from './mock-call-filters.js'

/** The properties a log exposes through `toMap()`, in order. */
export type MockCallHistoryLogProperty = 'protocol' | 'host' | 'port' | 'origin' | 'path' | 'hash' | 'searchParams' | 'fullUrl' | 'method' | 'body' | 'headers'

/** The URL fields a filter can select on, in the order object criteria apply them. */
const FILTERABLE: readonly MockCallHistoryFilterField[] = ['protocol', 'host', 'port', 'origin', 'path', 'hash', 'fullUrl', 'method']

/** One request as the mock agent saw it. */
export class MockCallHistoryLog {
  /** e.g. `http:` */
  readonly protocol: string
  /** Host with port, e.g. `127.0.0.1:3000`. */
  readonly host: string
  /** Port as text; empty for the scheme's default port. */
  readonly port: string
  /** e.g. `http://127.0.0.1:3000` */
  readonly origin: string
  /** The path without the query. */
  readonly path: string
  /** The fragment, usually empty. */
  readonly hash: string
  /** Query parameters (the last value wins for repeated names). */
  readonly searchParams: Record<string, string>
  /** The whole URL. */
  readonly fullUrl: string
  /** Request method. */
  readonly method: string
  /** The body as text when it was in memory; streams are not read here. */
  readonly body: unknown
  /** Request headers with lower-case names. */
  readonly headers: IncomingHeaders

  constructor (opts: DispatchOptions) {
    let url: URL
    try {
      url = new URL(serializePathWithQuery(opts.path, opts.query), opts.origin)
    } catch {
      // The parser's error keeps the whole input (a password included): it is not passed on as the cause.
      throw new InvalidArgumentError(`MockCallHistoryLog: cannot build a URL from origin ${describeUrl(opts.origin)} and path ${describeValue(opts.path)}`)
    }
    this.protocol = url.protocol
    this.host = url.host
    this.port = url.port
    this.origin = url.origin
    this.path = url.pathname
    this.hash = url.hash
    this.searchParams = Object.fromEntries(url.searchParams)
    this.fullUrl = url.toString()
    this.method = typeof opts.method === 'string' ? opts.method : 'GET'
    this.body = isBufferedBody(opts.body) ? bodyText(opts.body) : opts.body
    this.headers = normalizeHeaders(opts.headers)
  }

  /** The log as an ordered map of its properties. */
  toMap (): Map<MockCallHistoryLogProperty, unknown> {
    return new Map<MockCallHistoryLogProperty, unknown>([
      ['protocol', this.protocol], ['host', this.host], ['port', this.port], ['origin', this.origin],
      ['path', this.path], ['hash', this.hash], ['searchParams', this.searchParams], ['fullUrl', this.fullUrl],
      ['method', this.method], ['body', this.body], ['headers', this.headers]
    ])
  }

  /** `protocol->http:|host->...|...`: one line that RegExp criteria are tested against. */
  toString (): string {
    const parts: string[] = []
    for (const [key, value] of this.toMap()) {
      parts.push(`${key}->${value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    }
    return parts.join('|')
  }
}

function filterBy (field: MockCallHistoryFilterField, value: FilterCallsParameter, logs: readonly MockCallHistoryLog[]): MockCallHistoryLog[] {
  if (value instanceof RegExp) {
    return logs.filter((log) => {
      value.lastIndex = 0
      return value.test(log[field])
    })
  }
  if (typeof value === 'string' || value == null) return logs.filter((log) => log[field] === value)
  throw new InvalidArgumentError(`filterCalls(): ${field} must be a string, a RegExp, null or undefined, got ${describeValue(value)}`)
}

/**
 * The requests a mock agent received, oldest first (enable with `enableCallHistory`).
 * @example
 * const history = mockAgent.enableCallHistory().getCallHistory()
 * history.lastCall()?.fullUrl
 * history.filterCalls({ method: 'POST', path: /^\/users/ }, { operator: 'AND' })
 */
export class MockCallHistory {
  /** Every log, oldest first. */
  logs: MockCallHistoryLog[] = []

  /** Every log, oldest first. */
  calls (): MockCallHistoryLog[] {
    return this.logs
  }

  /** The first log, if any. */
  firstCall (): MockCallHistoryLog | undefined {
    return this.logs.at(0)
  }

  /** The last log, if any. */
  lastCall (): MockCallHistoryLog | undefined {
    return this.logs.at(-1)
  }

  /** The n-th log, counting from 1. */
  nthCall (n: number): MockCallHistoryLog | undefined {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
      throw new InvalidArgumentError(`nthCall(): n must be a positive integer (1 is the first call), got ${describeValue(n)}`)
    }
    return this.logs.at(n - 1)
  }

  /**
   * Logs selected by a predicate, a RegExp tested against `log.toString()`, or an object of
   * field criteria (OR by default, AND with `{ operator: 'AND' }`).
   */
  filterCalls (criteria: ((log: MockCallHistoryLog) => boolean) | RegExp | FilterCallsObjectCriteria, options?: FilterCallsOptions): MockCallHistoryLog[] {
    if (typeof criteria === 'function') return this.logs.filter(criteria)
    if (criteria instanceof RegExp) {
      return this.logs.filter((log) => {
        criteria.lastIndex = 0
        return criteria.test(log.toString())
      })
    }
    if (typeof criteria !== 'object' || criteria === null) {
      throw new InvalidArgumentError(`filterCalls(): criteria must be a function, a RegExp or an object, got ${describeValue(criteria)}`)
    }
    const operator = options?.operator ?? 'OR'
    if (typeof operator !== 'string' || !['AND', 'OR'].includes(operator.toUpperCase())) {
      throw new InvalidArgumentError(`filterCalls(): options.operator must be 'AND' or 'OR', got ${describeValue(operator)}`)
    }
    const fields = FILTERABLE.filter((field) => field in criteria)
    if (fields.length === 0) return this.logs
    if (operator.toUpperCase() === 'AND') {
      let selected: MockCallHistoryLog[] = this.logs
      for (const field of fields) selected = filterBy(field, criteria[field], selected)
      return selected
    }
    const selected = new Set<MockCallHistoryLog>()
    for (const field of fields) for (const log of filterBy(field, criteria[field], this.logs)) selected.add(log)
    return this.logs.filter((log) => selected.has(log))
  }

  /** Logs whose protocol matches. */
  filterCallsByProtocol (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('protocol', value, this.logs) }
  /** Logs whose host matches. */
  filterCallsByHost (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('host', value, this.logs) }
  /** Logs whose port matches. */
  filterCallsByPort (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('port', value, this.logs) }
  /** Logs whose origin matches. */
  filterCallsByOrigin (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('origin', value, this.logs) }
  /** Logs whose path matches. */
  filterCallsByPath (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('path', value, this.logs) }
  /** Logs whose fragment matches. */
  filterCallsByHash (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('hash', value, this.logs) }
  /** Logs whose full URL matches. */
  filterCallsByFullUrl (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('fullUrl', value, this.logs) }
  /** Logs whose method matches. */
  filterCallsByMethod (value: FilterCallsParameter): MockCallHistoryLog[] { return filterBy('method', value, this.logs) }

  /** Forgets every log. */
  clear (): void {
    this.logs = []
  }

  /** Adds a log for a request; returns it. */
  add (opts: DispatchOptions): MockCallHistoryLog {
    const log = new MockCallHistoryLog(opts)
    this.logs.push(log)
    return log
  }

  /** Iterates over the logs, oldest first. */
  * [Symbol.iterator] (): Iterator<MockCallHistoryLog> {
    yield * this.logs
  }
}

/** undici's names for the call history's types (`MockCallHistory.FilterCallsOptions`). */
export declare namespace MockCallHistory {
  /** A filter of logs by a predicate. */
  export type FilterCallsFunctionCriteria = (log: MockCallHistoryLog) => boolean
  /** {@link filters.FilterCallsObjectCriteria}. */
  export type FilterCallsObjectCriteria = filters.FilterCallsObjectCriteria
  /** How the criteria of one filter combine. */
  export type FilterCallsOperator = 'AND' | 'OR'
  /** {@link filters.FilterCallsOptions}. */
  export type FilterCallsOptions = filters.FilterCallsOptions
  /** {@link filters.FilterCallsParameter}. */
  export type FilterCallsParameter = filters.FilterCallsParameter
}

/** undici's names for a call log's types. */
export declare namespace MockCallHistoryLog {
  /** {@link MockCallHistoryLogProperty}. */
  export type MockCallHistoryLogProperties = MockCallHistoryLogProperty
}
