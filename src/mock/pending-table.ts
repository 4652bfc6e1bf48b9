/**
 * The table `assertNoPendingInterceptors()` prints: one row per interceptor that still waits
 * for requests, so a failing test shows at a glance what was never called.
 * @module
 */

import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import type { Matcher } from './mock-matching.js'

/** An interceptor that has not answered as many requests as it expects. */
export interface PendingInterceptor {
  /** The origin of the pool (a RegExp or function origin as text). */
  origin: string
  /** The path matcher given to `intercept()`. */
  path: Matcher
  /** The method matcher given to `intercept()`. */
  method: Matcher
  /** The body matcher given to `intercept()`, if any. */
  body: unknown
  /** The header matchers given to `intercept()`, if any. */
  headers: unknown
  /** The query given to `intercept()`, if any. */
  query: Record<string, unknown> | undefined
  /** Status code of the reply, undefined for callbacks and errors. */
  statusCode: number | undefined
  /** The registered error, for `replyWithError`. */
  error: Error | null
  /** How many requests it answers before it is used up. */
  times: number
  /** How many requests it answered so far. */
  timesInvoked: number
  /** True when it is never used up. */
  persist: boolean
  /** Milliseconds it waits before replying. */
  delay: number
  /** True once it answered all its requests and does not persist (never for a listed entry). */
  consumed: boolean
  /** Whether it treats `/a/` and `/a` as the same path. */
  ignoreTrailingSlash: boolean
  /** Always true here: it still expects requests. */
  pending: boolean
  /** The registered reply: the error, or the status, body (or callback), headers and trailers. */
  data: PendingReplyData
}

/** What an interceptor replies, as listed by `pendingInterceptors()`. */
export interface PendingReplyData {
  /** The error of `replyWithError`, otherwise null. */
  error: Error | null
  /** Status code of a static reply. */
  statusCode?: number
  /** Body of a static reply. */
  data?: unknown
  /** The reply callback of `reply(callback)`. */
  callback?: (...args: never[]) => unknown
  /** Headers of a static reply. */
  headers?: IncomingHeaders
  /** Trailers of a static reply. */
  trailers?: IncomingHeaders
}

const COLUMNS = ['Method', 'Origin', 'Path', 'Status code', 'Persistent', 'Invocations', 'Remaining'] as const

function show (value: unknown): string {
  if (typeof value === 'function') return value.name === '' ? '[function]' : `[function ${value.name}]`
  return String(value)
}

/** Formats pending interceptors as a plain-text table (no colours, so it reads the same in CI logs). */
export class PendingInterceptorsFormatter {
  /** The table, one row per interceptor, with a header row. */
  format (pending: readonly PendingInterceptor[]): string {
    const rows = pending.map((p) => [
      show(p.method),
      p.origin,
      show(p.path),
      p.error !== null ? `error: ${p.error.message}` : p.statusCode === undefined ? '(callback)' : String(p.statusCode),
      p.persist ? 'yes' : 'no',
      String(p.timesInvoked),
      p.persist ? 'Infinity' : String(p.times - p.timesInvoked)
    ])
    const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
    const line = (cells: readonly string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`
    const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`
    return [line(COLUMNS), rule, ...rows.map(line)].join('\n')
  }
}
