/**
 * setGlobalOrigin/getGlobalOrigin, install() and the RedirectHandler class compared with
 * undici's, against one local server: same URLs resolved, same errors, same globals replaced,
 * same redirects followed.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { both, caught, errorShape } from './harness.js'
import type { Lib } from './harness.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'

let server: TestServer
let topLevelHits = 0

before(async () => {
  server = await startHttpServer((req, res) => {
    if (req.url === '/top') topLevelHits++
    if (req.url === '/one') { res.writeHead(302, { location: '/two' }); res.end(); return }
    if (req.url === '/two') { res.writeHead(301, { location: '/end' }); res.end(); return }
    res.end(`${req.method} ${req.url}`)
  })
})
after(() => server.close())

/** Resolves relative URLs three ways (Request, Response.redirect, fetch) and records the outcomes. */
async function resolveRelative (lib: Lib): Promise<unknown[]> {
  return [
    await caught(async () => new lib.Request('items?x=1').url),
    await caught(async () => new lib.Request('/root').url),
    await caught(async () => lib.Response.redirect('../up', 301).headers.get('location')),
    await caught(async () => {
      const res = await lib.fetch('/fetched?y=2')
      return [res.url, await res.text()]
    })
  ]
}

describe('setGlobalOrigin and getGlobalOrigin compared with undici', () => {
  it('resolve relative URLs in Request, Response.redirect and fetch against the global origin', async () => {
    const seen = await both(async (lib) => {
      lib.setGlobalOrigin(`${server.origin}/base/dir/`)
      try {
        return { origin: String(lib.getGlobalOrigin()), resolved: await resolveRelative(lib) }
      } finally {
        lib.setGlobalOrigin(undefined)
      }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit.resolved[0], { value: `${server.origin}/base/dir/items?x=1` })
    assert.deepEqual(seen.conduit.resolved[3], { value: [`${server.origin}/fetched?y=2`, 'GET /fetched?y=2'] })
  })

  it('leave the top-level request(), stream() and pipeline() alone: a relative URL fails there as it does without one', async () => {
    const seen = await both(async (lib) => {
      lib.setGlobalOrigin(server.origin)
      try {
        return [
          await caught(async () => lib.request('/top')),
          await caught(async () => lib.stream('/top', {}, () => { throw new Error('no response expected') })),
          await caught(async () => lib.pipeline('/top', {}, () => { throw new Error('no response expected') }))
        ]
      } finally {
        lib.setGlobalOrigin(undefined)
      }
    })
    // Both refuse before sending; undici lets the URL parser's TypeError through, conduit's is an
    // InvalidArgumentError as for every refused argument (docs/undici-differences.md).
    const failed = (outcomes: unknown[]): boolean[] => outcomes.map((outcome) => !('value' in (outcome as object)))
    assert.deepEqual(failed(seen.conduit), [true, true, true])
    assert.deepEqual(failed(seen.undici), [true, true, true])
    assert.equal(topLevelHits, 0)
    for (const outcome of seen.conduit) assert.deepEqual(outcome, { error: 'InvalidArgumentError', code: 'LIB_ERR_INVALID_ARG' })
  })

  it('fail relative URLs with a TypeError when no global origin is set', async () => {
    const seen = await both(async (lib) => {
      lib.setGlobalOrigin(undefined)
      return { origin: lib.getGlobalOrigin(), resolved: await resolveRelative(lib) }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    for (const outcome of seen.conduit.resolved) assert.deepEqual(outcome, { error: 'TypeError', code: undefined })
  })

  it('refuse what is not an http(s) URL with a TypeError, conduit naming the value', async () => {
    const seen = await both(async (lib) => [
      await caught(async () => lib.setGlobalOrigin('not a url')),
      await caught(async () => lib.setGlobalOrigin('ftp://127.0.0.1/')),
      lib.getGlobalOrigin()
    ])
    assert.deepEqual(seen.conduit, seen.undici)
    const { setGlobalOrigin } = await import('../../src/index.js')
    assert.throws(() => setGlobalOrigin('not a url'), (err: Error) => err instanceof TypeError && err.message.includes('"not a url"'))
    assert.throws(() => setGlobalOrigin('http://user:secret@'), (err: Error) => err instanceof TypeError && !err.message.includes('secret'))
  })
})

describe('install() compared with undici', () => {
  const NAMES = ['fetch', 'Headers', 'Request', 'Response', 'FormData', 'WebSocket', 'CloseEvent', 'ErrorEvent', 'MessageEvent', 'EventSource']
  // Still to come from the WebSocket and EventSource work; install() sets them once they exist.
  const PENDING = new Set<string>()
  const globals = globalThis as unknown as Record<string, unknown>
  const saved = Object.fromEntries(NAMES.map((name) => [name, globals[name]]))
  after(() => { for (const name of NAMES) globals[name] = saved[name] })

  it("replaces the same globals with the library's own classes", async () => {
    const seen = await both(async (lib) => {
      for (const name of NAMES) globals[name] = saved[name]
      lib.install()
      return NAMES.filter((name) => globals[name] === lib[name] && globals[name] !== saved[name])
    })
    assert.deepEqual(seen.conduit, seen.undici.filter((name) => !PENDING.has(name)))
  })

  it("makes the global fetch conduit's, returning conduit's Response", async () => {
    const conduit = await import('../../src/index.js')
    conduit.install()
    const res = await fetch(`${server.origin}/installed`)
    assert.ok(res instanceof conduit.Response)
    assert.equal(await res.text(), 'GET /installed')
  })
})

describe('RedirectHandler compared with undici', () => {
  /** Dispatches `path` through `dispatch` with a handler that records what it sees. */
  function record (dispatch: (opts: unknown, handler: unknown) => boolean, path: string): Promise<unknown> {
    return new Promise((resolve) => {
      let status = 0
      let body = ''
      let context: { history?: URL[] } = {}
      dispatch({ origin: server.origin, path, method: 'GET' }, {
        // undici passes a new context on every hop, conduit one for the whole request: the last one counts.
        onRequestStart (_controller: unknown, started: { history?: URL[] }) { context = started },
        onResponseStart (_controller: unknown, statusCode: number) { status = statusCode },
        onResponseData (_controller: unknown, chunk: Buffer) { body += chunk.toString() },
        onResponseEnd () { resolve({ status, body, history: (context.history ?? []).map((url) => String(url).replace(server.origin, '')) }) },
        onResponseError (_controller: unknown, err: Error) { resolve(errorShape(err)) }
      })
    })
  }

  it('follows redirects the same way, built with buildDispatch or with its constructor', async () => {
    const seen = await both(async (lib) => {
      const agent = new lib.Agent()
      try {
        const built = lib.RedirectHandler.buildDispatch(agent, 3)
        const direct = (max: number) => (opts: any, handler: unknown) => {
          const dispatch = (o: unknown, h: unknown): boolean => agent.dispatch(o, h)
          return dispatch(opts, new lib.RedirectHandler(dispatch, max, opts, handler))
        }
        return [
          await record(built, '/one'),
          await record(direct(5), '/one'),
          await record(direct(1), '/one'),
          await record(direct(0), '/one')
        ]
      } finally {
        await agent.close()
      }
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual((seen.conduit[0] as { body: string }).body, 'GET /end')
  })

  it('rejects a bad maxRedirections with an InvalidArgumentError', async () => {
    const seen = await both(async (lib) => [
      await caught(async () => new lib.RedirectHandler(() => true, -1, { origin: server.origin, path: '/', method: 'GET' }, {})),
      await caught(async () => lib.RedirectHandler.buildDispatch(new lib.Agent(), 1.5))
    ])
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit[0], { error: 'InvalidArgumentError', code: 'LIB_ERR_INVALID_ARG' })
  })
})
