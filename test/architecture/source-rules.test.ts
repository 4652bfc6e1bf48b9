import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, findCycles, readSourceGraph, roomGraph, roomOf } from './source-graph.js'
import type { SourceFile } from './source-graph.js'

/**
 * About 400 lines is where a file is worth a look for a second role, not where it must be split:
 * a file holding one role may be longer. This bound only catches a file that grew into several.
 */
const MAX_LINES = 700
const graph = readSourceGraph()

describe('the library sources', () => {
  it('are found by the graph reader, with their imports', () => {
    assert.ok(graph.size > 100, `expected the library sources, found ${graph.size} files`)
    assert.ok(graph.get('src/index.ts')?.imports.includes('src/dispatcher/agent.ts'))
  })

  it('form no import cycle, type-only imports included', () => {
    const cycles = findCycles(graph).map((cycle) => cycle.join(' -> '))
    assert.deepEqual(cycles, [])
  })

  it('form no cycle between folders (src/h1, interceptors/cache...) or root files, type-only imports included', () => {
    const cycles = findCycles(roomGraph(graph)).map((cycle) => cycle.join(' -> '))
    assert.deepEqual(cycles, [])
  })

  it('keep the transport layered: h1/ and h2/ import neither each other, dispatcher/ nor api/, and the connection layer none of them', () => {
    const mustNotImport: Record<string, string[]> = {
      'src/h1': ['src/h2', 'src/dispatcher', 'src/api'],
      'src/h2': ['src/h1', 'src/dispatcher', 'src/api'],
      'src/connection': ['src/h1', 'src/h2', 'src/dispatcher', 'src/api']
    }
    const offending: string[] = []
    for (const file of graph.values()) {
      const forbidden = mustNotImport[roomOf(file.path)] ?? []
      for (const target of file.imports) if (forbidden.includes(roomOf(target))) offending.push(`${file.path} -> ${target}`)
    }
    assert.deepEqual(offending, [])
  })

  it('finds a cycle when one is there', () => {
    const file = (path: string, imports: string[]): [string, SourceFile] => [path, { path, lines: 1, imports }]
    const made = new Map([file('a.ts', ['b.ts']), file('b.ts', ['c.ts']), file('c.ts', ['a.ts'])])
    assert.deepEqual(findCycles(made), [['a.ts', 'b.ts', 'c.ts', 'a.ts']])
  })

  it('groups files into folders, and finds a cycle between folders that no file cycle shows', () => {
    assert.equal(roomOf('src/h1/connection.ts'), 'src/h1')
    assert.equal(roomOf('src/errors.ts'), 'src/errors.ts')
    const file = (path: string, imports: string[]): [string, SourceFile] => [path, { path, lines: 1, imports }]
    const made = new Map([file('src/a/one.ts', ['src/b/two.ts']), file('src/b/two.ts', []), file('src/b/three.ts', ['src/a/four.ts']), file('src/a/four.ts', [])])
    assert.deepEqual(findCycles(made), [])
    assert.deepEqual(findCycles(roomGraph(made)), [['src/a', 'src/b', 'src/a']])
  })

  it(`keep every file at ${MAX_LINES} lines or fewer`, () => {
    const long = [...graph.values()].filter((f) => f.lines > MAX_LINES).map((f) => `${f.path} (${f.lines} lines)`)
    assert.deepEqual(long, [])
  })

  it('keep the core free of interceptors, stores and presets: only the public index imports them', () => {
    const offending: string[] = []
    for (const file of graph.values()) {
      if (!file.path.startsWith('src/') || file.path === 'src/index.ts') continue
      for (const target of file.imports) {
        if (!target.startsWith('src/')) offending.push(`${file.path} -> ${target}`)
      }
    }
    assert.deepEqual(offending, [])
  })

  it('let interceptors and stores reach the core only through src/handler.ts, and import no preset', () => {
    const offending: string[] = []
    for (const file of graph.values()) {
      if (!file.path.startsWith('interceptors/') && !file.path.startsWith('stores/')) continue
      for (const target of file.imports) {
        if ((target.startsWith('src/') && target !== 'src/handler.ts') || target.startsWith('presets/')) offending.push(`${file.path} -> ${target}`)
      }
    }
    assert.deepEqual(offending, [])
  })

  it('let a file reach another interceptor only through its front file (interceptors/<name>/index.ts)', () => {
    // What several interceptors share and none owns is a module of its own at interceptors/ (request-identity.ts).
    const offending: string[] = []
    for (const file of graph.values()) {
      for (const target of file.imports) {
        const folder = /^(interceptors\/[^/]+)\//.exec(target)?.[1]
        if (folder === undefined || file.path.startsWith(`${folder}/`) || target === `${folder}/index.ts`) continue
        offending.push(`${file.path} -> ${target}`)
      }
    }
    assert.deepEqual(offending, [])
  })

  it('keep src/handler.ts on top of the core: no core file but the public index imports it', () => {
    const importers = [...graph.values()]
      .filter((file) => file.path.startsWith('src/') && file.path !== 'src/index.ts' && file.imports.includes('src/handler.ts'))
      .map((file) => file.path)
    assert.deepEqual(importers, [])
  })

  it('let only the connection and replay layers settle the read heap (src/runtime/heap-settling.ts)', () => {
    // A store, a snapshot or a handler face that settled it would leave out every store a user
    // writes; the readers of sockets and the player of bodies in memory see every large body.
    const allowed = new Set(['src/h1', 'src/h2', 'src/websocket', 'src/connection', 'src/replay'])
    const offending = [...graph.values()]
      .filter((file) => file.imports.includes('src/runtime/heap-settling.ts') && !allowed.has(roomOf(file.path)))
      .map((file) => file.path)
    assert.deepEqual(offending, [])
    assert.ok(graph.get('src/replay/response-player.ts')?.imports.includes('src/runtime/heap-settling.ts'))
  })

  it('word every bad option through the one validation module, in every file that checks options', () => {
    // The options files, the dispatchers' constructors, and every interceptor's and preset's
    // factory and handler. Not in scope: what a store handed back (interceptors/cache/stored-entry-check.ts
    // words a broken entry, not an option). src/dispatcher/client.ts still words its origin by hand.
    const notOptions = new Set(['src/validation/options.ts', 'interceptors/cache/stored-entry-check.ts', 'src/dispatcher/client.ts'])
    const checksOptions = (path: string): boolean => /options\.ts$/.test(path) || /^(src\/dispatcher|interceptors|presets)\//.test(path)
    const handWritten = [...graph.keys()]
      .filter((path) => checksOptions(path) && !notOptions.has(path))
      .filter((path) => {
        const text = readFileSync(join(REPO_ROOT, path), 'utf8')
        if (/must be [^`]*, got \$\{/.test(text)) return true
        // An options file that checks anything says so through the kit.
        return /options\.ts$/.test(path) && !/failOption\(/.test(text) && / must be /.test(text)
      })
    assert.deepEqual(handWritten, [])
  })

  it('copy a request\'s dispatch options to change them with copyOptions, not a spread that adds keys (src/runtime/copy-options.ts)', () => {
    // On Node 20 each key a spread adds to a copy of the options costs about 1 µs; the copy is
    // made per request, so the whole family goes through the one helper.
    const spreadWithKeys = /\{ \.\.\.(opts|o|request\.opts|attempt\.opts|this\.#opts|this\.#baseOpts|options|dispatchOpts), (?!\.\.\.)/g
    // Options merged once per dispatcher or connection, and retry options (not dispatch options).
    const allowed = new Set(['src/dispatcher/h2c-client.ts', 'src/dispatcher/client-options.ts', 'presets/env-http-proxy-agent.ts', 'interceptors/retry/index.ts'])
    const found: string[] = []
    for (const path of graph.keys()) {
      if (allowed.has(path) || !/^(src|interceptors|presets)\//.test(path)) continue
      const text = readFileSync(join(REPO_ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')
      for (const match of text.matchAll(spreadWithKeys)) found.push(`${path}: ${match[0]}`)
    }
    assert.deepEqual(found, [])
  })

  it('schedule the core\'s timers, immediates and ticks through the runtime\'s own, taken at load (src/runtime/timers.ts)', () => {
    // A fake clock a test installs replaces the globals; the transport must keep running. The
    // one exception is a mock reply's delay, which follows the caller's clock as undici's does.
    const allowed = new Map([['src/replay/response-player.ts', ['setTimeout', 'clearTimeout']]])
    const scheduling = /(?<![.\w])(setTimeout|clearTimeout|setInterval|clearInterval|setImmediate|clearImmediate|queueMicrotask)\s*\(|process\.nextTick\s*\(/g
    const global: string[] = []
    for (const path of graph.keys()) {
      if (!path.startsWith('src/') || path === 'src/runtime/timers.ts') continue
      const text = readFileSync(join(REPO_ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')
      const imported = /import \{([^}]*)\} from '[./]*runtime\/timers\.js'/.exec(text)?.[1]?.split(',').map((name) => name.trim()) ?? []
      for (const match of text.matchAll(scheduling)) {
        const name = match[1] ?? 'process.nextTick'
        if (imported.includes(name) || allowed.get(path)?.includes(name)) continue
        global.push(`${path}: ${name}`)
      }
    }
    assert.deepEqual([...new Set(global)], [])
  })

  it('schedule the interceptors\' and stores\' timers on the runtime\'s own, except those meant to follow a fake clock', () => {
    // I/O deadlines, leases and heartbeats must run under a test's fake clock; retry backoff and
    // the snapshot flush, rate-limit waits and hedge delays follow the caller's clock on purpose (docs/transport.md, "Fake clocks").
    const followsCallerClock = new Map([
      ['interceptors/retry/retry-wait.ts', ['setTimeout', 'clearTimeout']],
      ['interceptors/retry/retry-strategy.ts', ['setTimeout']],
      ['interceptors/rate-limit/limiter.ts', ['setTimeout']],
      ['interceptors/hedge/hedged-request.ts', ['setTimeout', 'clearTimeout']],
      ['interceptors/snapshot/snapshot-recorder.ts', ['setTimeout', 'clearTimeout']],
      ['interceptors/snapshot/timed-body.ts', ['setTimeout', 'clearTimeout']]
    ])
    // A worker thread has globals of its own, which no fake clock of the main thread replaces.
    const ownRealm = new Set(['stores/sqlite-writer-worker.ts'])
    const scheduling = /(?<![.\w])(setTimeout|clearTimeout|setInterval|clearInterval|setImmediate|clearImmediate|queueMicrotask)\s*\(|process\.nextTick\s*\(/g
    const global: string[] = []
    for (const path of graph.keys()) {
      if (!/^(interceptors|stores|presets)\//.test(path) || ownRealm.has(path)) continue
      const text = readFileSync(join(REPO_ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')
      for (const match of text.matchAll(scheduling)) {
        const name = match[1] ?? 'process.nextTick'
        if (followsCallerClock.get(path)?.includes(name)) continue
        global.push(`${path}: ${name}`)
      }
    }
    assert.deepEqual([...new Set(global)], [])
  })

  it('import nothing that does not exist', () => {
    const missing: string[] = []
    for (const file of graph.values()) {
      for (const target of file.imports) if (!graph.has(target)) missing.push(`${file.path} -> ${target}`)
    }
    assert.deepEqual(missing, [])
  })
})
