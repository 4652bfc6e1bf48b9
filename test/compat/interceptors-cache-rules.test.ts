/**
 * Differential tests: RFC 9111 rules of conduit's cache interceptor against undici's, each
 * scenario played through a fresh dispatcher of each library on the same local server and
 * reduced to what a caller sees (bodies) and what the origin sees (requests, validators).
 */

import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { Agent, interceptors } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import { undici } from './interceptors-harness.js'

interface Played {
  bodies: string[]
  /** Per origin request: the validators it carried. */
  origin: Array<{ ifNoneMatch: boolean, ifModifiedSince: boolean }>
}

type Step = Record<string, unknown>

/** Answers an origin request; `n` counts the requests of the library being played, from 1. */
type Origin = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void

/** Plays `steps` (request options) through a shared cache of each library; conduit's result first. */
async function play (t: TestContext, origin: Origin, steps: Step[]): Promise<[Played, Played]> {
  let n = 0
  const server = await startHttpServer((req, res) => { origin(req, res, ++n) })
  t.after(async () => { await server.close() })
  const results: Played[] = []
  const libraries = [
    () => { const agent = new Agent(); return { agent, dispatcher: agent.compose(interceptors.cache({ type: 'shared', cacheStatus: false })) } },
    () => { const agent = new undici.Agent(); return { agent, dispatcher: agent.compose(undici.interceptors.cache({ type: 'shared' })) } }
  ]
  for (const make of libraries) {
    const { agent, dispatcher } = make()
    const first = server.requests.length
    n = 0
    const bodies: string[] = []
    try {
      for (const step of steps) {
        const res = await (dispatcher as unknown as { request: (o: object) => Promise<{ body: { text: () => Promise<string> } }> })
          .request({ origin: server.origin, path: '/', method: 'GET', ...step })
        bodies.push(await res.body.text())
        // The memory stores of both write after the body ended; one turn lets them finish.
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      await agent.close()
    }
    const origin = server.requests.slice(first).map((r) => ({ ifNoneMatch: r.headers['if-none-match'] !== undefined, ifModifiedSince: r.headers['if-modified-since'] !== undefined }))
    results.push({ bodies, origin })
  }
  return [results[0], results[1]]
}

describe('cache(): RFC 9111 rules, conduit and undici agree', () => {
  for (const age of ['abc', '-7200', '7200.0']) {
    // An intended difference (docs/undici-differences.md): RFC 9111 §5.1 says to ignore such an
    // Age; undici takes the response as too old to store.
    it(`differ on an Age of "${age}": conduit ignores it and serves from the cache, undici asks the origin again`, async (t) => {
      const [ours, theirs] = await play(t, (_req, res, n) => {
        res.setHeader('cache-control', 'max-age=3600')
        res.setHeader('age', age)
        res.end(`n=${n}`)
      }, [{}, {}])
      assert.deepEqual(ours.bodies, ['n=1', 'n=1'])
      assert.deepEqual(theirs.bodies, ['n=1', 'n=2'])
    })
  }

  it('revalidate a response without ETag or Last-Modified with If-Modified-Since, and serve it on 304', async (t) => {
    let n = 0
    const [ours, theirs] = await play(t, (req, res, n) => {
      res.setHeader('cache-control', 'max-age=60')
      res.setHeader('date', new Date().toUTCString())
      if (req.headers['if-modified-since'] !== undefined) { res.statusCode = 304; res.end(); return }
      res.end(`n=${n}`)
      // The second request is a reload, which revalidates the fresh stored response.
    }, [{}, { headers: { 'cache-control': 'max-age=0' } }])
    assert.deepEqual(ours, theirs, JSON.stringify([ours, theirs]))
    assert.deepEqual(ours.bodies, ['n=1', 'n=1'])
    assert.deepEqual(ours.origin, [{ ifNoneMatch: false, ifModifiedSince: false }, { ifNoneMatch: false, ifModifiedSince: true }])
  })

  it('do not answer from the stored body when the 304 says no-store, but ask again without validators', async (t) => {
    let n = 0
    const [ours, theirs] = await play(t, (req, res, n) => {
      res.setHeader('etag', '"e"')
      if (req.headers['if-none-match'] !== undefined) { res.writeHead(304, { 'cache-control': 'no-store' }); res.end(); return }
      res.setHeader('cache-control', 'no-cache')
      res.end(`n=${n}`)
    }, [{}, {}])
    // undici also sends If-Modified-Since beside If-None-Match (the time it stored the response).
    const etagsSent = (played: Played): boolean[] => played.origin.map((request) => request.ifNoneMatch)
    assert.deepEqual(ours.bodies, theirs.bodies)
    assert.deepEqual(etagsSent(ours), etagsSent(theirs))
    assert.deepEqual(ours.bodies, ['n=1', 'n=3'])
    assert.deepEqual(etagsSent(ours), [false, true, false])
  })

  const malformedPermissions = [
    'public =',
    'public=1, max-age=60',
    'must-revalidate=1, max-age=60',
    'public, private\u00a0, max-age=60',
    'public, private=" authorization", max-age=60',
    'public, max-age=60, private="authorization"',
    's-maxage=abc, max-age=60',
    'public, max-age=60, max-age=0'
  ]
  for (const cacheControl of malformedPermissions) {
    it(`do not serve the response to an Authorization request to another request when it says ${JSON.stringify(cacheControl)}`, async (t) => {
      const [ours, theirs] = await play(t, (req, res, n) => {
        res.setHeader('cache-control', cacheControl)
        res.setHeader('date', new Date().toUTCString())
        res.end(`n=${n} ${req.headers.authorization ?? 'anyone'}`)
      }, [{ headers: { authorization: 'Bearer secret' } }, {}])
      assert.deepEqual(ours.bodies, theirs.bodies)
      assert.deepEqual(ours.bodies, ['n=1 Bearer secret', 'n=2 anyone'])
    })
  }
})
