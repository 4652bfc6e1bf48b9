/**
 * The table `assertNoPendingInterceptors()` prints: one row per interceptor that still waits
 * for requests, so a failing test shows at a glance what was never called.
 * @module
 */

import type { Matcher } from './mock-matching.js'

/** An interceptor that has not answered as many requests as it expects. */
export interface PendingInterceptor {
  origin: string
  path: Matcher
  method: Matcher
  body: unknown
  headers: unknown
  query: Record<string, unknown> | undefined
  /** Status code of the reply, undefined for callbacks and errors. */
  statusCode: number | undefined
  /** The registered error, for `replyWithError`. */
  error: Error | null
  times: number
  timesInvoked: number
  persist: boolean
  delay: number
  pending: boolean
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
