/**
 * One recording per test: helpers that give each test its own snapshot file, named after the
 * test, replayed in CI and brought up to date locally, and installed as the global dispatcher
 * for the test's duration (the previous one is put back afterwards).
 *
 * - `node:test` and Vitest: `withSnapshot(t)` inside the test, with the test's context.
 * - Jest (and Vitest without contexts): `snapshotHooks({ beforeEach, afterEach, expect })` once
 *   in a file or `describe`; `hooks.agent` is the current test's agent.
 * @module
 */

import { createHash } from 'node:crypto'
import { basename, dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GLOBAL_DISPATCHER, RUNTIME_FETCH_GLOBAL_DISPATCHER, RUNTIME_FETCH_GLOBAL_DISPATCHER_2, setGlobalDispatcher } from '../src/global.js'
import { InvalidArgumentError } from '../src/errors.js'
import { failOption } from '../src/validation/options.js'
import type { SnapshotMode } from '../interceptors/snapshot/index.js'
import { SnapshotAgent } from './snapshot-agent.js'
import type { SnapshotAgentOptions } from './snapshot-agent.js'

/** Options of {@link withSnapshot} and {@link snapshotHooks}: the snapshot agent's (but `snapshotPath`), plus where the file goes. */
export type TestSnapshotOptions = SnapshotAgentOptions & TestFileOptions

/** Where a test's recording goes, and whether its agent becomes the global dispatcher. */
export interface TestFileOptions {
  /**
   * The folder of the recordings.
   * @defaultValue `__recordings__/<test file name>` beside the test file
   */
  dir?: string | undefined
  /**
   * The file name without extension.
   * @defaultValue the test's full name (its suites' names and its own), made safe for a file name
   */
  name?: string | undefined
  /**
   * `json` for the snapshot layout, `har` for HAR 1.2.
   * @defaultValue `'json'`
   */
  format?: 'json' | 'har' | undefined
  /**
   * Make the agent the global dispatcher during the test (for `fetch()` and `request()`
   * without a dispatcher, and the runtime's own `fetch`).
   * @defaultValue `true`
   */
  global?: boolean | undefined
}

/** What {@link withSnapshot} reads of a `node:test` test context. */
export interface NodeTestContextLike {
  /** The test's name. */
  readonly name: string
  /** Its name with its suites' (Node 22.3 and later). */
  readonly fullName?: string | undefined
  /** The test file (Node 22.6 and later). */
  readonly filePath?: string | undefined
  /** Runs `fn` once the test finished. */
  after (fn: () => unknown): void
}

/** What {@link withSnapshot} reads of a Vitest test context. */
export interface VitestContextLike {
  /** The running test. */
  readonly task: {
    /** The test's own name. */
    readonly name: string
    /** The test file Vitest runs it from. */
    readonly file?: {
      /** The file's path. */
      readonly filepath?: string | undefined
    } | undefined
  }
  /** Runs `fn` once the test finished. */
  onTestFinished (fn: () => unknown): void
  /** The test's `expect`, whose state names the test with its suites. */
  readonly expect?: ExpectLike | undefined
}

/** What the helpers read of `expect` (Jest's global, Vitest's). */
export interface ExpectLike {
  /** The running test's name (suites included) and file. */
  getState (): {
    /** The test's name, its suites' names before it. */
    currentTestName?: string | undefined
    /** The test file's path. */
    testPath?: string | undefined
  }
}

/** The hooks {@link snapshotHooks} registers on: Jest's globals, or Vitest's imports. */
export interface TestHooksLike {
  /** Registers `fn` to run before each test. */
  beforeEach (fn: () => unknown): void
  /** Registers `fn` to run after each test. */
  afterEach (fn: () => unknown): void
  /** The framework's `expect`. */
  expect: ExpectLike
}

/** The agent of the test running now, from {@link snapshotHooks}. */
export interface SnapshotHooks {
  /** The current test's snapshot agent; throws outside a test. */
  readonly agent: SnapshotAgent
}

/** Longest file name made from a test name, before a hash of the whole name is added. */
const MAX_NAME_CHARS = 80

/** The CI convention most services follow: `CI` set to anything but `false` or `0`. */
function inCi (): boolean {
  const ci = process.env.CI
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0'
}

/**
 * The test's name as a file name: words joined by `-` (suites' ` > ` separators too) when
 * that is all it takes; otherwise the safe characters, shortened, and a hash of the whole
 * name, so that two names never share a file.
 */
export function recordingFileName (testName: string): string {
  const plain = testName.trim().replace(/\s+>\s+/g, ' ').replace(/\s+/g, '-')
  if (/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(plain) && plain.length <= MAX_NAME_CHARS) return plain
  const safe = plain.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-{2,}/g, '-').replace(/^[-.]+|-+$/g, '')
  const hash = createHash('sha256').update(testName).digest('hex').slice(0, 8)
  return `${safe.slice(0, MAX_NAME_CHARS).replace(/-+$/, '') || 'test'}-${hash}`
}

function testFilePath (path: string | undefined): string | undefined {
  if (path === undefined || path === '') return undefined
  return path.startsWith('file:') ? fileURLToPath(path) : path
}

/** Puts the global dispatcher slots back as they were when this was called. */
function captureGlobalDispatchers (): () => void {
  const slots = globalThis as unknown as Record<symbol, unknown>
  const keys = [GLOBAL_DISPATCHER, RUNTIME_FETCH_GLOBAL_DISPATCHER, RUNTIME_FETCH_GLOBAL_DISPATCHER_2]
  const before = keys.map((key) => [key, Object.getOwnPropertyDescriptor(slots, key)] as const)
  return () => {
    for (const [key, descriptor] of before) {
      const now = Object.getOwnPropertyDescriptor(slots, key)
      if (descriptor !== undefined) {
        if (now === undefined || now.configurable === true) Object.defineProperty(slots, key, descriptor)
        else slots[key] = descriptor.value
      } else if (now?.configurable === true) {
        delete slots[key]
      } else if (now !== undefined) {
        // The runtime's slots cannot be removed once defined; empty, its fetch makes its own agent again.
        slots[key] = undefined
      }
    }
  }
}

interface TestIdentity { name: string, file: string | undefined }

function checkOptions (options: unknown, who: string): TestSnapshotOptions {
  if (options === undefined) return {}
  if (options === null || typeof options !== 'object') failOption(who, 'options', 'an object', options)
  const opts = options as TestSnapshotOptions
  if (opts.dir !== undefined && (typeof opts.dir !== 'string' || opts.dir === '')) failOption(who, 'dir', 'a non-empty string', opts.dir)
  if (opts.name !== undefined && (typeof opts.name !== 'string' || opts.name === '')) failOption(who, 'name', 'a non-empty string', opts.name)
  if (opts.format !== undefined && opts.format !== 'json' && opts.format !== 'har') failOption(who, 'format', "'json' or 'har'", opts.format)
  if (opts.global !== undefined && typeof opts.global !== 'boolean') failOption(who, 'global', 'a boolean', opts.global)
  if (opts.snapshotPath !== undefined) failOption(who, 'snapshotPath', 'left out (the file is named after the test; choose its folder with dir and its name with name)', opts.snapshotPath)
  return opts
}

/** Builds the agent of one test, installs it, and returns it with its cleanup. */
function startRecording (test: TestIdentity, opts: TestSnapshotOptions): { agent: SnapshotAgent, finish: () => Promise<void> } {
  const { dir, name, format, global, ...agentOptions } = opts
  const folder = dir ?? (test.file === undefined
    ? join(process.cwd(), '__recordings__')
    : join(dirname(test.file), '__recordings__', basename(test.file, extname(test.file))))
  const snapshotPath = join(folder, `${name ?? recordingFileName(test.name)}.${format ?? 'json'}`)
  // Replay in CI, bring recordings up to date elsewhere; CONDUIT_SNAPSHOT_MODE overrides both.
  const mode: SnapshotMode = agentOptions.mode ?? (inCi() ? 'playback' : 'update')
  const agent = new SnapshotAgent({ ...agentOptions, mode, snapshotPath })
  const restore = global === false ? () => {} : captureGlobalDispatchers()
  if (global !== false) setGlobalDispatcher(agent)
  let finished: Promise<void> | undefined
  const finish = (): Promise<void> => {
    finished ??= (async () => {
      restore()
      await agent.close()
    })()
    return finished
  }
  return { agent, finish }
}

function isVitestContext (t: object | ((...args: never[]) => unknown)): t is VitestContextLike {
  return typeof (t as Partial<VitestContextLike>).onTestFinished === 'function' && typeof (t as Partial<VitestContextLike>).task === 'object'
}

/**
 * A snapshot agent for this test alone, its file named after the test; it is the global
 * dispatcher until the test ends, when it is closed (saving new recordings) and the previous
 * global dispatcher comes back. The mode is `playback` in CI (`CI` set) and `update` elsewhere,
 * unless `mode` or `CONDUIT_SNAPSHOT_MODE` says otherwise.
 * @param t - the `node:test` test context, or a Vitest test context
 * @example
 * import { it } from 'node:test'
 * import { withSnapshot, fetch } from 'conduit'
 *
 * it('lists the repositories', async (t) => {
 *   withSnapshot(t)
 *   const response = await fetch('https://api.example.org/repos')
 *   // ...
 * })
 */
export function withSnapshot (t: NodeTestContextLike | VitestContextLike, options?: TestSnapshotOptions): SnapshotAgent {
  const opts = checkOptions(options, 'withSnapshot()')
  // Vitest's test context is a function with properties.
  if (t === null || (typeof t !== 'object' && typeof t !== 'function')) failOption('withSnapshot()', 't', 'a node:test or Vitest test context', t)
  let test: TestIdentity
  let after: (fn: () => unknown) => void
  if (isVitestContext(t)) {
    const state = t.expect?.getState()
    test = { name: state?.currentTestName ?? t.task.name, file: testFilePath(t.task.file?.filepath ?? state?.testPath) }
    after = (fn) => t.onTestFinished(fn)
  } else if (typeof (t as NodeTestContextLike).after === 'function' && typeof (t as NodeTestContextLike).name === 'string') {
    const node = t as NodeTestContextLike
    test = { name: node.fullName ?? node.name, file: testFilePath(node.filePath ?? process.argv[1]) }
    after = (fn) => node.after(fn)
  } else {
    failOption('withSnapshot()', 't', 'a node:test or Vitest test context', t)
  }
  const { agent, finish } = startRecording(test, opts)
  after(finish)
  return agent
}

/**
 * Gives every test of a file (or `describe`) its own snapshot agent, as {@link withSnapshot}
 * does, through the framework's hooks: for Jest, whose tests get no context, and for Vitest.
 * @example
 * // Jest: beforeEach, afterEach and expect are globals
 * import { snapshotHooks, fetch } from 'conduit'
 * const recording = snapshotHooks({ beforeEach, afterEach, expect })
 *
 * test('lists the repositories', async () => {
 *   const response = await fetch('https://api.example.org/repos')
 *   // recording.agent is this test's agent
 * })
 */
export function snapshotHooks (hooks: TestHooksLike, options?: TestSnapshotOptions): SnapshotHooks {
  const opts = checkOptions(options, 'snapshotHooks()')
  if (hooks === null || typeof hooks !== 'object' || typeof hooks.beforeEach !== 'function' || typeof hooks.afterEach !== 'function' || typeof hooks.expect?.getState !== 'function') {
    failOption('snapshotHooks()', 'hooks', 'an object with beforeEach, afterEach and expect', hooks)
  }
  let current: { agent: SnapshotAgent, finish: () => Promise<void> } | null = null
  hooks.beforeEach(() => {
    const state = hooks.expect.getState()
    current = startRecording({ name: state.currentTestName ?? 'test', file: testFilePath(state.testPath) }, opts)
  })
  hooks.afterEach(async () => {
    const running = current
    current = null
    await running?.finish()
  })
  return {
    get agent (): SnapshotAgent {
      if (current === null) throw new InvalidArgumentError('snapshotHooks(): agent is only available while a test runs (between beforeEach and afterEach)')
      return current.agent
    }
  }
}
