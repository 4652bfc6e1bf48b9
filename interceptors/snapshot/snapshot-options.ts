/**
 * Options of the snapshot interceptor (and of `SnapshotAgent`): defaults and validation, done
 * once when the interceptor is built.
 * @module
 */

import { InvalidArgumentError, MAX_TIMER_MS, describeValueKind, failOption } from '../../src/handler.js'
import type { DispatchOptions, OptionFailure } from '../../src/handler.js'

/** The snapshot modes. */
export const SNAPSHOT_MODES: readonly SnapshotMode[] = ['record', 'playback', 'update', 'lockdown']

/**
 * `record`: always ask the network and store; `playback`: only replay; `update`: replay what
 * exists, record the rest; `lockdown`: only replay, and nothing reaches the network, not even
 * requests that `excludeUrls` or `shouldPlayback` would let through (for CI).
 */
export type SnapshotMode = 'record' | 'playback' | 'update' | 'lockdown'

/** The environment variable that overrides the `mode` option of every snapshot agent and interceptor. */
export const SNAPSHOT_MODE_VARIABLE = 'CONDUIT_SNAPSHOT_MODE'

/** What a replayed entry older than `maxAge` does: `warn` replays it and warns once; `fail` fails the request. */
export type StaleSnapshotAction = 'warn' | 'fail'

/** The stale-entry actions. */
export const STALE_SNAPSHOT_ACTIONS: readonly StaleSnapshotAction[] = ['warn', 'fail']

/** Milliseconds between automatic saves when `autoFlush` is on. */
export const DEFAULT_FLUSH_INTERVAL_MS = 30_000

/** Options of the snapshot interceptor. */
export interface SnapshotOptions {
  /**
   * What to do with requests. The `CONDUIT_SNAPSHOT_MODE` environment variable, when set,
   * overrides it.
   * @defaultValue `'record'`
   */
  mode?: SnapshotMode | undefined
  /**
   * The snapshot file; required in `'playback'`, `'update'` and `'lockdown'` modes. A name
   * ending in `.har` is read and written as HAR 1.2; any other as the JSON snapshot layout.
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
   * Headers never written to the snapshot file (request, response and trailers), besides the
   * credential headers, which are left out by default. Always compared case-insensitively, so a
   * secret cannot slip through by its spelling.
   * @defaultValue `[]`
   */
  excludeHeaders?: string[] | undefined
  /**
   * Credential headers (`authorization`, `cookie`, `set-cookie`, `x-api-key`...) recorded and
   * matched after all. Every other credential header stays out of files and matching.
   * @defaultValue `[]`
   */
  keepCredentialHeaders?: string[] | undefined
  /**
   * More query parameter names whose values are written as `[redacted]` and matched by name
   * only, besides those named like secrets (`token`, `key`, `api_key`, `access_token`, `signature`...).
   * @defaultValue `[]`
   */
  redactQueryParameters?: string[] | undefined
  /**
   * Query parameters named like secrets that are recorded and matched with their values after all.
   * @defaultValue `[]`
   */
  keepQueryParameters?: string[] | undefined
  /**
   * Save a file even when the scan finds what looks like a secret (`Bearer ...`, an AWS key...)
   * in it; by default such a save fails with `LIB_ERR_SNAPSHOT_SECRET` and writes nothing.
   * @defaultValue `false`
   */
  allowSecrets?: boolean | undefined
  /**
   * Milliseconds after which a recorded entry is stale (see `onStale`); in `'update'` mode a
   * stale entry is recorded anew.
   * @defaultValue `Infinity`
   */
  maxAge?: number | undefined
  /**
   * What replaying a stale entry does in `'playback'` and `'lockdown'` modes: `'warn'` replays
   * it and emits one warning per entry; `'fail'` fails the request with `LIB_ERR_SNAPSHOT_STALE`.
   * @defaultValue `'warn'`
   */
  onStale?: StaleSnapshotAction | undefined
  /**
   * When the file is saved, leave out the loaded entries no request asked for in this run.
   * @defaultValue `false`
   */
  prune?: boolean | undefined
  /**
   * How fast recorded delays are replayed: `0` replays at once, `1` at the recorded pace (the
   * wait for the response head and the gaps between the chunks of streamed responses), `n` n
   * times faster (`0.5` twice as slow).
   * @defaultValue `0`
   */
  replaySpeed?: number | undefined
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
  'excludeHeaders', 'keepCredentialHeaders', 'redactQueryParameters', 'keepQueryParameters', 'allowSecrets',
  'maxAge', 'onStale', 'prune', 'replaySpeed', 'matchBody', 'normalizeBody', 'matchQuery', 'normalizeQuery',
  'caseSensitive', 'shouldRecord', 'shouldPlayback', 'excludeUrls'
] as const satisfies ReadonlyArray<keyof SnapshotOptions>

/** Options after defaults and validation. */
export interface ResolvedSnapshotOptions {
  /** The snapshot mode. */
  mode: SnapshotMode
  /** Where the mode came from: the option (or its default) or the environment variable. */
  modeSource: 'option' | 'environment'
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
  /** Credential headers stored and matched after all (lower-case). */
  keepCredentialHeaders: string[]
  /** Extra query parameters redacted. */
  redactQueryParameters: string[]
  /** Secret-named query parameters kept. */
  keepQueryParameters: string[]
  /** Save even when the secret scan finds something. */
  allowSecrets: boolean
  /** Milliseconds after which an entry is stale. */
  maxAge: number
  /** What a stale entry does in playback and lockdown. */
  onStale: StaleSnapshotAction
  /** Leave unused loaded entries out of the saved file. */
  prune: boolean
  /** Speed factor of replayed delays; 0 for none. */
  replaySpeed: number
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
    const what = name.endsWith('QueryParameters') ? 'an array of query parameter names' : 'an array of header names'
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return fail(name, what, value)
    return value as string[]
  }
  const modes = `one of ${SNAPSHOT_MODES.map((m) => `'${m}'`).join(', ')}`
  if (opts.mode !== undefined && !(SNAPSHOT_MODES as readonly unknown[]).includes(opts.mode)) fail('mode', modes, opts.mode)
  const { mode, modeSource } = modeFromEnvironment(opts.mode ?? 'record', who, modes)
  const snapshotPath = opts.snapshotPath ?? null
  if (snapshotPath !== null && (typeof snapshotPath !== 'string' || snapshotPath === '')) fail('snapshotPath', 'a non-empty string', snapshotPath)
  if (snapshotPath === null && mode !== 'record') {
    const from = modeSource === 'environment' ? ` (set by ${SNAPSHOT_MODE_VARIABLE})` : ''
    throw new InvalidArgumentError(`${who}: snapshotPath is required when mode is '${mode}'${from}`)
  }
  const maxAge = opts.maxAge ?? Infinity
  if (maxAge !== Infinity && (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge <= 0)) {
    fail('maxAge', 'a positive number of milliseconds or Infinity', maxAge)
  }
  const onStale = opts.onStale ?? 'warn'
  if (!(STALE_SNAPSHOT_ACTIONS as readonly unknown[]).includes(onStale)) fail('onStale', `one of ${STALE_SNAPSHOT_ACTIONS.map((a) => `'${a}'`).join(', ')}`, onStale)
  const replaySpeed = opts.replaySpeed ?? 0
  if (typeof replaySpeed !== 'number' || !Number.isFinite(replaySpeed) || replaySpeed < 0) {
    fail('replaySpeed', 'a non-negative finite number (0 replays at once, 1 at the recorded pace)', replaySpeed)
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
    modeSource,
    snapshotPath,
    maxSnapshots,
    autoFlush: bool('autoFlush', false),
    flushInterval,
    matchHeaders: names('matchHeaders'),
    ignoreHeaders: names('ignoreHeaders') ?? [],
    excludeHeaders: names('excludeHeaders') ?? [],
    keepCredentialHeaders: (names('keepCredentialHeaders') ?? []).map((name) => name.toLowerCase()),
    redactQueryParameters: names('redactQueryParameters') ?? [],
    keepQueryParameters: names('keepQueryParameters') ?? [],
    allowSecrets: bool('allowSecrets', false),
    maxAge,
    onStale,
    prune: bool('prune', false),
    replaySpeed,
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

/**
 * The mode in force: `CONDUIT_SNAPSHOT_MODE`, when set and not empty, overrides the option, so
 * one test suite records on a laptop and only replays in CI without a code change. It is read
 * when the agent is built.
 */
function modeFromEnvironment (option: SnapshotMode, who: string, modes: string): { mode: SnapshotMode, modeSource: 'option' | 'environment' } {
  const value = process.env[SNAPSHOT_MODE_VARIABLE]
  if (value === undefined || value === '') return { mode: option, modeSource: 'option' }
  if (!(SNAPSHOT_MODES as readonly string[]).includes(value)) failOption(who, `the environment variable ${SNAPSHOT_MODE_VARIABLE}`, modes, value)
  return { mode: value as SnapshotMode, modeSource: 'environment' }
}
