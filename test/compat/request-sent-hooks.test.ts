/**
 * Differential tests of the request half of the dispatch lifecycle on the transport itself
 * (Client over HTTP/1.1 and HTTP/2): the order of `onRequestStart`, `onBodySent` (per chunk),
 * `onRequestSent` and the response hooks, and what happens to a stream body once it was sent.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { both, libraries } from './harness.js'
import type { Lib } from './harness.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startH2sServer } from '../helpers/h2-server.js'
import type { H2TestServer } from '../helpers/h2-server.js'
import { caCrt } from '../helpers/certs.js'
import { UNDICI_MAJOR } from '../helpers/undici-reference.js'

type BodyKind = 'none' | 'string' | 'buffer' | 'iterable' | 'stream'

function makeBody (kind: BodyKind): unknown {
  switch (kind) {
    case 'none': return undefined
    case 'string': return 'hello'
    case 'buffer': return Buffer.from('hello')
    case 'iterable': return (async function * () { yield Buffer.from('hel'); yield Buffer.from('lo') })()
    case 'stream': return Readable.from([Buffer.from('hel'), Buffer.from('lo')], { objectMode: false })
  }
}

/** Dispatches one POST on a fresh Client and records the hooks in order (body-sent with its size). */
async function hookOrder (lib: Lib, origin: string, kind: BodyKind, h2: boolean): Promise<string[]> {
  const client = new lib.Client(origin, h2 ? { allowH2: true, connect: { ca: caCrt, servername: 'localhost' } } : {})
  const events: string[] = []
  try {
    await new Promise<void>((resolve) => {
      client.dispatch({ path: '/', method: 'POST', body: makeBody(kind) }, {
        onRequestStart () { events.push('requestStart') },
        onBodySent (chunk: Uint8Array | string) { events.push(`bodySent ${typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength}`) },
        onRequestSent () { events.push('requestSent') },
        onResponseStart (_c: unknown, status: number) { events.push(`responseStart ${status}`) },
        onResponseData () { if (events[events.length - 1] !== 'responseData') events.push('responseData') },
        onResponseEnd () { events.push('responseEnd'); resolve() },
        onResponseError (_c: unknown, err: Error) { events.push(`responseError ${err.message}`); resolve() }
      })
    })
  } finally {
    await client.close()
  }
  return events
}

const KINDS: BodyKind[] = ['none', 'string', 'buffer', 'iterable', 'stream']

/** The request hooks conduit reports for each body kind, on both protocols. */
const REQUEST_HOOKS: Record<BodyKind, string[]> = {
  none: ['requestStart', 'requestSent'],
  string: ['requestStart', 'bodySent 5', 'requestSent'],
  buffer: ['requestStart', 'bodySent 5', 'requestSent'],
  iterable: ['requestStart', 'bodySent 3', 'bodySent 2', 'requestSent'],
  stream: ['requestStart', 'bodySent 3', 'bodySent 2', 'requestSent']
}
const RESPONSE_HOOKS = ['responseStart 200', 'responseData', 'responseEnd']

/** Runs `scenario` through conduit, and through undici too when the reference is undici 8 (undici 7 calls neither hook for these handlers). */
async function withReference<T> (scenario: (lib: Lib) => Promise<T>): Promise<{ conduit: T, undici: T | undefined }> {
  if (UNDICI_MAJOR === 8) return await both(scenario)
  return { conduit: await scenario(libraries.conduit), undici: undefined }
}

let h1: TestServer
let h2: H2TestServer
before(async () => {
  // Each server reads the whole request body before it answers, so the request is sent first.
  h1 = await startHttpServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')) })
  h2 = await startH2sServer((stream) => { stream.resume(); stream.on('end', () => { stream.respond({ ':status': 200 }); stream.end('ok') }) })
})
after(() => Promise.all([h1.close(), h2.close()]))

describe('onBodySent and onRequestSent on the transport, conduit and undici agree', () => {
  for (const kind of KINDS) {
    it(`HTTP/1.1, ${kind} body: the same hooks in the same order`, async () => {
      const { undici, conduit } = await withReference((lib) => hookOrder(lib, h1.origin, kind, false))
      if (undici !== undefined) assert.deepEqual(conduit, undici)
      assert.deepEqual(conduit, [...REQUEST_HOOKS[kind], ...RESPONSE_HOOKS])
    })

    it(`HTTP/2, ${kind} body: the same hooks in the same order`, async () => {
      const { undici, conduit } = await withReference((lib) => hookOrder(lib, h2.origin.replace('localhost', '127.0.0.1'), kind, true))
      // undici 8 reports no onBodySent for a Node stream over HTTP/2 (it does over HTTP/1.1);
      // conduit reports each chunk on both (docs/undici-differences.md).
      const comparable = kind === 'stream' ? conduit.filter((e) => !e.startsWith('bodySent')) : conduit
      if (undici !== undefined) assert.deepEqual(comparable, undici)
      assert.deepEqual(conduit, [...REQUEST_HOOKS[kind], ...RESPONSE_HOOKS])
    })
  }
})

describe('a stream request body once it was sent, conduit and undici agree', () => {
  for (const h2Wanted of [false, true]) {
    for (const [size, autoDestroy] of [[0, true], [5, true], [0, false], [5, false]] as const) {
      it(`${h2Wanted ? 'HTTP/2' : 'HTTP/1.1'}: a ${size === 0 ? 'empty ' : ''}stream${autoDestroy ? '' : ' that does not destroy itself'} is destroyed`, async () => {
        const scenario = async (lib: Lib): Promise<{ status: number, body: string, destroyed: boolean }> => {
          const origin = h2Wanted ? h2.origin.replace('localhost', '127.0.0.1') : h1.origin
          const client = new lib.Client(origin, h2Wanted ? { allowH2: true, connect: { ca: caCrt, servername: 'localhost' } } : {})
          const body = new Readable({ autoDestroy, read () { if (size > 0) this.push(Buffer.alloc(size, 'a')); this.push(null) } })
          try {
            const res = await client.request({ path: '/', method: 'POST', body })
            const text = await res.body.text()
            // The body is destroyed when the request was sent; give a turn for it to happen.
            await new Promise((resolve) => setImmediate(resolve))
            return { status: res.statusCode, body: text, destroyed: body.destroyed }
          } finally {
            await client.close()
          }
        }
        const { undici, conduit } = await withReference(scenario)
        // undici 8 never reads an empty stream body, so leaves it open (docs/undici-differences.md).
        if (undici !== undefined && size > 0) assert.deepEqual(conduit, undici)
        assert.deepEqual(conduit, { status: 200, body: 'ok', destroyed: true })
      })
    }
  }
})
