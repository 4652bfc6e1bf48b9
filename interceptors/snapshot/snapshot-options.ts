/**
 * Options of the snapshot interceptor (and of `SnapshotAgent`): defaults and validation, done
 * once when the interceptor is built.
 * @module
 */

import { InvalidArgumentError, MAX_TIMER_MS, describeValueKind, failOption } from '../../src/handler.js'
import type { DispatchOptions, OptionFailure } from '../../src/handler.js'

/** The snapshot modes. */
export const SNAPSHOT_MODES: readonly SnapshotMode[] = ['record', 'playback', 'update']

/** `record`: always ask the network and store; `playback`: only replay; `update`: replay what exists, record the rest. */
export type SnapshotMode = 'record' | 'playback' | 'update'

/** Milliseconds between automatic saves when `autoFlush` is on. */
export const DEFAULT_FLUSH_INTERVAL_MS = 30_000

/** Options of the snapshot interceptor. */
export interface SnapshotOptions {
  /**
   * What to do with requests.
   * @defaultValue `'record'`
   */
  mode?: SnapshotMode | undefined
  /**
   * The snapshot file; required in `'playback'` and `'update'` modes.
   * @defaultValue `null`
   */
  snapshotPath?: string | null | undefined
  /**
   * Most distinct requests kept in memory; the oldest recorded is dropped first.
   * @defaultValue `Infinity`
   */
  maxSnapshots?: number | undefined
  /**
   * Save to `snapshotPath` on a timer while recording.
   * @defaultValue `false`
   */
  autoFlush?: boolean | undefined
  /**
   * Milliseconds between automatic saves (with `autoFlush`).
   * @defaultValue `30000`
   */
  flushInterval?: number | undefined
  /**
   * Only these request headers take part in matching.
   * @defaultValue all headers
   */
  matchHeaders?: string[] | undefined
  /**
   * Request headers left out of matching.
   * @defaultValue `[]`
   */
  ignoreHeaders?: string[] | undefined
  /**
   * Headers never written to the snapshot file (request, response and trailers), e.g. `authorization`, `set-cookie`.
   * Always compared case-insensitively, so a secret cannot slip through by its spelling.
   * @defaultValue `[]`
   */
  excludeHeaders?: string[] | undefined
  /**
   * Include the request body in matching.
   * @defaultValue `true`
   */
  matchBody?: boolean | undefined
  /** Turns the body into the text that is matched and stored (only with `matchBody`). */
  normalizeBody?: ((body: string | Buffer | null | undefined) => string) | undefined
  /**
   * Include the query string in matching.
   * @defaultValue `true`
   */
  matchQuery?: boolean | undefined
  /** Turns the query into the string that is matched and stored (only with `matchQuery`). */
  normalizeQuery?: ((query: URLSearchParams) => string) | undefined
  /**
   * Keep header names as the caller wrote them and compare the header lists exactly.
   * @defaultValue `false`
   */
  caseSensitive?: boolean | undefined
  /** Return false to pass a request through without recording it (record and update modes). */
  shouldRecord?: ((requestOpts: DispatchOptions) => boolean) | undefined
  /** Return false to not serve a request from the snapshots (playback and update modes). */
  shouldPlayback?: ((requestOpts: DispatchOptions) => boolean) | undefined
  /** URLs that are never recorded or replayed: strings match as case-insensitive substrings, RegExps are tested. */
  excludeUrls?: Array<string | RegExp> | undefined
}

/** The names of the snapshot options, to tell them apart from the options of the agent below. */
export const SNAPSHOT_OPTION_NAMES = [
  'mode', 'snapshotPath', 'maxSnapshots', 'autoFlush', 'flushInterval', 'matchHeaders', 'ignoreHeaders',
  'excludeHeaders', 'matchBody', 'normalizeBody', 'matchQuery', 'normalizeQuery', 'caseSensitive',
  'shouldRecord', 'shouldPlayback', 'excludeUrls'
] as const satisfies ReadonlyArray<keyof SnapshotOptions>

/** Options after defaults and validation. */
export interface ResolvedSnapshotOptions {
  /** The snapshot mode. */
  mode: SnapshotMode
  /** The snapshot file, or null. */
  snapshotPath: string | null
  /** Most distinct requests kept. */
  maxSnapshots: number
  /** Save on a timer. */
  autoFlush: boolean
  /** Milliseconds between automatic saves. */
  flushInterval: number
  /** Only these headers are matched; null for all. */
  matchHeaders: string[] | null
  /** Headers left out of matching. */
  ignoreHeaders: string[]
  /** Headers never stored. */
  excludeHeaders: string[]
  /** Whether the body is matched. */
  matchBody: boolean
  /** Body rewrite before matching and storing, or null. */
  normalizeBody: ((body: string | Buffer | null | undefined) => string) | null
  /** Whether the query is matched. */
  matchQuery: boolean
  /** Query rewrite before matching and storing, or null. */
  normalizeQuery: ((query: URLSearchParams) => string) | null
  /** Whether header names keep their case. */
  caseSensitive: boolean
  /** Decides whether a request is recorded. */
  shouldRecord: (requestOpts: DispatchOptions) => boolean
  /** Decides whether a request is replayed. */
  shouldPlayback: (requestOpts: DispatchOptions) => boolean
  /** URLs passed straight through. */
  excludeUrls: Array<string | RegExp>
}

// The snapshot options' messages show a bad value by its kind only.
const SHOWN_BY_KIND: OptionFailure = Object.freeze({ show: describeValueKind })

/** Applies defaults and validates; `who` prefixes error messages (e.g. `snapshot()` or `SnapshotAgent`). */
export function resolveSnapshotOptions (opts: SnapshotOptions, who: string): ResolvedSnapshotOptions {
  const fail = (name: string, rule: string, value: unknown): never => failOption(who, name, rule, value, SHOWN_BY_KIND)
  if (opts === null || typeof opts !== 'object') fail('options', 'an object', opts)
  const bool = (name: keyof SnapshotOptions, fallback: boolean): boolean => {
    const value = opts[name]
    if (value === undefined) return fallback
    return typeof value === 'boolean' ? value : fail(name, 'a boolean', value)
  }
  const fn = <T>(name: keyof SnapshotOptions): T | null => {
    const value = opts[name]
    if (value === undefined || value === null) return null
    return typeof value === 'function' ? value as T : fail(name, 'a function', value)
  }
  const names = (name: keyof SnapshotOptions): string[] | null => {
    const value = opts[name]
    if (value === undefined) return null
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail(name, 'an array of header names', value)
    return value as string[]
  }
  const mode = opts.mode ?? 'record'
  if (!(SNAPSHOT_MODES as readonly unknown[]).includes(mode)) fail('mode', `one of ${SNAPSHOT_MODES.map((m) => `'${m}'`).join(', ')}`, mode)
  const snapshotPath = opts.snapshotPath ?? null
  if (snapshotPath !== null && (typeof snapshotPath !== 'string' || snapshotPath === '')) fail('snapshotPath', 'a non-empty string', snapshotPath)
  if (snapshotPath === null && (mode === 'playback' || mode === 'update')) {
    throw new InvalidArgumentError(`${who}: snapshotPath is required when mode is '${mode}'`)
  }
  const maxSnapshots = opts.maxSnapshots ?? Infinity
  if (maxSnapshots !== Infinity && (typeof maxSnapshots !== 'number' || !Number.isInteger(maxSnapshots) || maxSnapshots < 1)) {
    fail('maxSnapshots', 'a positive integer or Infinity', maxSnapshots)
  }
  const flushInterval = opts.flushInterval ?? DEFAULT_FLUSH_INTERVAL_MS
  if (typeof flushInterval !== 'number' || !Number.isInteger(flushInterval) || flushInterval < 1 || flushInterval > MAX_TIMER_MS) {
    fail('flushInterval', `a positive integer (milliseconds) up to ${MAX_TIMER_MS}`, flushInterval)
  }
  const excludeUrls = opts.excludeUrls ?? []
  if (!Array.isArray(excludeUrls) || !excludeUrls.every((p) => typeof p === 'string' || p instanceof RegExp)) {
    fail('excludeUrls', 'an array of strings and RegExps', excludeUrls)
  }
  return {
    mode,
    snapshotPath,
    maxSnapshots,
    autoFlush: bool('autoFlush', false),
    flushInterval,
    matchHeaders: names('matchHeaders'),
    ignoreHeaders: names('ignoreHeaders') ?? [],
    excludeHeaders: names('excludeHeaders') ?? [],
    matchBody: bool('matchBody', true),
    normalizeBody: fn('normalizeBody'),
    matchQuery: bool('matchQuery', true),
    normalizeQuery: fn('normalizeQuery'),
    caseSensitive: bool('caseSensitive', false),
    shouldRecord: fn('shouldRecord') ?? (() => true),
    shouldPlayback: fn('shouldPlayback') ?? (() => true),
    excludeUrls
  }
}
