/**
 * Exceptions thrown by user code that the library calls. Where undici lets them escape (request
 * callbacks, 'disconnect' listeners) they surface as uncaught exceptions, never swallowed, never
 * taken for a transport error, and the dispatcher keeps working; each of those runs in a child
 * process. Inside an API path (factories, handlers, hooks, bodies, mock replies) they reach the
 * caller as a rejection or a stream error, never leaving it waiting.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { both, libraries, type Lib } from './harness.js'

const CHILD = fileURLToPath(new URL('./fixtures/user-exceptions-child.js', import.meta.url))

function runChild (lib: string, scenario: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // Only a bound against a hung child: on a loaded machine loading undici alone can take seconds.
    execFile(process.execPath, [CHILD, lib, scenario], { timeout: 120_000 }, (err, stdout) => {
      if (err !== null) reject(err)
      else resolve(JSON.parse(stdout))
    })
  })
}

describe('exceptions thrown by user code, compared with undici', () => {
  for (const [scenario, message] of [
    ['success-callback', 'thrown in the success callback'],
    ['error-callback', 'thrown in the error callback'],
    ['disconnect-listener', 'thrown in a disconnect listener']
  ] as const) {
    it(`surface as uncaught, once, with the dispatcher still working: ${scenario}`, async () => {
      const seen = await both((_lib, name) => runChild(name, scenario))
      assert.deepEqual(seen.conduit, seen.undici)
      assert.deepEqual(seen.conduit, { uncaught: [message], calls: 1, after: 'ok' })
    })
  }
})

/** What a caller observes of a settled operation: `resolved`, or the rejection's message (and its cause's). */
async function outcome (run: () => Promise<unknown>): Promise<string> {
  let bound: NodeJS.Timeout | undefined
  // Only a bound against a hang (the failure being tested for); never reached by a passing run.
  const hung = new Promise<string>((resolve) => { bound = setTimeout(() => resolve('no outcome: the caller was left waiting'), 60_000) })
  try {
    return await Promise.race([run().then(() => 'resolved', (err: Error) => {
      const cause = (err as { cause?: Error }).cause
      return `rejected: ${err.message}${cause instanceof Error ? ` (cause: ${cause.message})` : ''}`
    }), hung])
  } finally {
    clearTimeout(bound)
  }
}

const THROWN = 'thrown by user code'
function thrower (): never { throw new Error(THROWN) }

/** A composed interceptor that forwards every hook, except that `hook` throws. */
function throwingHook (hook: string) {
  return (dispatch: (opts: unknown, handler: unknown) => boolean) => (opts: unknown, handler: Record<string, (...args: unknown[]) => unknown>) => {
    const forward: Record<string, (...args: unknown[]) => unknown> = {}
    for (const name of ['onRequestStart', 'onRequestUpgrade', 'onResponseStart', 'onResponseData', 'onResponseEnd', 'onResponseError']) {
      forward[name] = (...args) => handler[name]?.(...args)
    }
    forward[hook] = thrower
    return dispatch(opts, forward)
  }
}

type Scenario = (lib: Lib, origin: string, agent: any) => Promise<unknown>

/** Every API path that calls user code, with that code throwing. */
const PATHS: Array<[string, Scenario]> = [
  ['stream() factory', (_lib, origin, agent) => agent.stream({ origin, path: '/', method: 'GET' }, thrower)],
  ['stream() factory, callback form', (_lib, origin, agent) => new Promise<void>((resolve, reject) => {
    agent.stream({ origin, path: '/', method: 'GET' }, thrower, (err: Error | null) => { if (err === null) resolve(); else reject(err) })
  })],
  ['top-level stream(url, options, factory)', (lib, origin, agent) => lib.stream(origin, { dispatcher: agent }, thrower)],
  ['pipeline() handler', (_lib, origin, agent) => new Promise<void>((resolve, reject) => {
    const duplex = agent.pipeline({ origin, path: '/', method: 'GET' }, thrower)
    duplex.on('error', reject)
    duplex.on('close', () => resolve())
    duplex.resume()
    duplex.end()
  })],
  ['request() onInfo on a 103', (_lib, origin, agent) => agent.request({ origin, path: '/early-hints', method: 'GET', onInfo: thrower }).then(async (res: any) => res.body.text())],
  ['request() async-iterable body', (_lib, origin, agent) => agent.request({
    origin, path: '/', method: 'POST', body: (async function * () { yield 'a'; thrower() })()
  }).then(async (res: any) => res.body.text())],
  ['fetch() async-iterable body', (lib, origin, agent) => lib.fetch(origin, {
    dispatcher: agent, method: 'POST', duplex: 'half', body: (async function * () { yield 'a'; thrower() })()
  }).then(async (res: any) => res.text())],
  ['fetch() ReadableStream body pull', (lib, origin, agent) => lib.fetch(origin, {
    dispatcher: agent, method: 'POST', duplex: 'half', body: new ReadableStream({ pull: thrower })
  }).then(async (res: any) => res.text())],
  ['MockAgent reply function', async (lib, origin) => {
    const mock = new lib.MockAgent()
    mock.disableNetConnect()
    mock.get(origin).intercept({ path: '/' }).reply(thrower)
    try { return await mock.request({ origin, path: '/', method: 'GET' }).then(async (res: any) => res.body.text()) } finally { await mock.close() }
  }],
  ['MockAgent reply data function', async (lib, origin) => {
    const mock = new lib.MockAgent()
    mock.disableNetConnect()
    mock.get(origin).intercept({ path: '/' }).reply(200, thrower)
    try { return await mock.request({ origin, path: '/', method: 'GET' }).then(async (res: any) => res.body.text()) } finally { await mock.close() }
  }]
]
/** Paths where undici leaves the caller waiting (docs/undici-differences.md), with what conduit's caller sees. */
const CONDUIT_ONLY: Array<[string, Scenario, string]> = [
  ['RetryAgent retry callback', async (lib) => {
    const agent = new lib.RetryAgent(new lib.Agent(), { retry: thrower })
    try { return await agent.request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }) } finally { await agent.destroy() }
  }, `rejected: ${THROWN}`]
]
for (const hook of ['onRequestStart', 'onResponseStart', 'onResponseData', 'onResponseEnd']) {
  PATHS.push([`interceptor ${hook}, request()`, (_lib, origin, agent) => agent.compose(throwingHook(hook)).request({ origin, path: '/', method: 'GET' }).then(async (res: any) => res.body.text())])
  const fetchThrough: Scenario = (lib, origin, agent) => lib.fetch(origin, { dispatcher: agent.compose(throwingHook(hook)) }).then(async (res: any) => res.text())
  // undici's fetch leaves the caller waiting on a body hook that throws (docs/undici-differences.md).
  if (hook === 'onResponseData' || hook === 'onResponseEnd') CONDUIT_ONLY.push([`interceptor ${hook}, fetch()`, fetchThrough, 'rejected: terminated (cause: thrown by user code)'])
  else PATHS.push([`interceptor ${hook}, fetch()`, fetchThrough])
  PATHS.push([`interceptor ${hook}, stream()`, (_lib, origin, agent) => agent.compose(throwingHook(hook)).stream({ origin, path: '/', method: 'GET' }, () => new Writable({ write: (_c, _e, cb) => cb() }))])
}

describe('exceptions thrown by user code inside API paths reach the caller, compared with undici', () => {
  let server: http.Server
  let origin: string
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume()
      if (req.url === '/early-hints') res.writeEarlyHints({ link: '</a.css>; rel=preload' })
      req.on('end', () => res.end('hello'))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  for (const [name, scenario] of PATHS) {
    it(name, async () => {
      const seen = await both(async (lib) => {
        const agent = new lib.Agent()
        try { return await outcome(() => scenario(lib, origin, agent)) } finally { await agent.destroy() }
      })
      assert.deepEqual(seen.conduit, seen.undici)
      assert.match(seen.conduit, /^rejected: /)
    })
  }

  for (const [name, scenario, expected] of CONDUIT_ONLY) {
    it(`${name} (undici leaves the caller waiting)`, async () => {
      const agent = new libraries.conduit.Agent()
      try {
        assert.equal(await outcome(() => scenario(libraries.conduit, origin, agent)), expected)
      } finally { await agent.destroy() }
    })
  }
})
