/**
 * Differential tests: conduit's dump, responseError, dns, deduplicate, cache and retry
 * interceptors against undici's, on the same local servers.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Client, interceptors } from '../../src/index.js'
import { startHttpServer, startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { compare, observe, pair, undici } from './interceptors-harness.js'

describe('dump() and responseError(): conduit and undici agree', () => {
  let server: TestServer
  before(async () => {
    server = await startHttpServer((req, res) => {
      if (req.url === '/json') {
        res.writeHead(422, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ field: 'name', problem: 'missing' }))
      } else if (req.url === '/text') {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end('broken')
      } else if (req.url === '/html') {
        res.writeHead(404, { 'content-type': 'text/html' })
        res.end('<p>gone</p>')
      } else {
        res.setHeader('x-size', '3000')
        res.end('b'.repeat(3000))
      }
    })
  })
  after(() => server.close())

  it('dump() hands over status and headers with an empty body, and aborts past maxSize', async () => {
    const both = pair([interceptors.dump({ maxSize: 4096 })], [undici.interceptors.dump({ maxSize: 4096 })])
    try {
      const [ours, theirs] = await compare(both, { origin: server.origin, path: '/' }, ['x-size', 'content-length'])
      assert.deepEqual(ours, theirs)
      assert.equal(ours.body, '')
      const [small, smallTheirs] = await compare(both, { origin: server.origin, path: '/', dumpMaxSize: 100 })
      assert.deepEqual(small, smallTheirs)
      assert.equal(small.error, 'LIB_ERR_ABORTED')
    } finally {
      await both.close()
    }
  })

  it('responseError() fails >= 400 answers with the same status and body', async () => {
    const both = pair([interceptors.responseError()], [undici.interceptors.responseError()])
    try {
      for (const path of ['/json', '/text', '/html', '/']) {
        const [ours, theirs] = await compare(both, { origin: server.origin, path })
        assert.deepEqual(ours, theirs, path)
      }
    } finally {
      await both.close()
    }
  })
})

describe('dns(): conduit and undici agree', () => {
  it('reach the address the lookup function gives, with the original Host', async (t) => {
    const hosts: string[] = []
    const server = await startHttpServer((req, res) => { hosts.push(req.headers.host ?? ''); res.end('resolved') })
    const lookup = (_origin: URL, _opts: unknown, cb: (err: null, records: Array<{ address: string, family: 4, ttl: number }>) => void): void => {
      cb(null, [{ address: '127.0.0.1', family: 4, ttl: 1000 }])
    }
    const both = pair([interceptors.dns({ lookup })], [undici.interceptors.dns({ lookup: lookup as never })])
    t.after(async () => { await both.close(); await server.close() })
    const [ours, theirs] = await compare(both, { origin: `http://compat.test:${server.port}`, path: '/' })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.body, 'resolved')
    assert.deepEqual(hosts, [`compat.test:${server.port}`, `compat.test:${server.port}`])
  })
})

describe('deduplicate(): conduit and undici agree', () => {
  it('send ten identical concurrent GETs to the origin once and give each caller the body', async (t) => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const server = await startHttpServer((req, res) => { server.server.emit('arrived'); void gate.then(() => res.end('once')) })
    const both = pair([interceptors.deduplicate()], [undici.interceptors.deduplicate()])
    t.after(async () => { await both.close(); await server.close() })
    for (const dispatcher of [both.conduit, both.undici]) {
      const before = server.requests.length
      const arrived = once(server.server, 'arrived')
      const all = Array.from({ length: 10 }, () => observe(dispatcher, { origin: server.origin, path: '/dedup' }))
      await arrived
      release()
      const outcomes = await Promise.all(all)
      assert.deepEqual(outcomes.map((o) => o.body), Array(10).fill('once'))
      assert.equal(server.requests.length - before, 1)
    }
  })
})

describe('cache() on a Client: conduit and undici agree', () => {
  it('caches a request whose origin is "localhost", keyed as given', async (t) => {
    let n = 0
    const server = await startHttpServer((req, res) => { res.setHeader('cache-control', 'max-age=60'); res.end(`n=${++n}`) })
    const ours = new Client(server.origin)
    const theirs = new undici.Client(server.origin)
    t.after(async () => { await ours.close(); await theirs.close(); await server.close() })
    const bodies: string[] = []
    for (const dispatcher of [ours.compose(interceptors.cache({ cacheStatus: false })), theirs.compose(undici.interceptors.cache())]) {
      for (let i = 0; i < 2; i++) bodies.push((await observe(dispatcher as never, { origin: 'localhost', path: '/c' })).body!)
    }
    assert.deepEqual(bodies, ['n=1', 'n=1', 'n=2', 'n=2'])
  })

  it('plays a hit from the memory store in the same order relative to dispatch() returning', async (t) => {
    const server = await startHttpServer((_req, res) => { res.setHeader('cache-control', 'max-age=60'); res.end('stored') })
    const ours = new Client(server.origin)
    const theirs = new undici.Client(server.origin)
    t.after(async () => { await ours.close(); await theirs.close(); await server.close() })
    const orders: string[][] = []
    for (const dispatcher of [ours.compose(interceptors.cache({ cacheStatus: false })), theirs.compose(undici.interceptors.cache())]) {
      await observe(dispatcher as never, { origin: server.origin, path: '/hit' })
      const events: string[] = []
      const done = new Promise<void>((resolve) => {
        (dispatcher as { dispatch: (opts: object, handler: object) => boolean }).dispatch({ origin: server.origin, path: '/hit', method: 'GET' }, {
          onRequestStart: () => { events.push('start') },
          onResponseStart: (_c: unknown, statusCode: number) => { events.push(`head ${statusCode}`) },
          onResponseData: (_c: unknown, chunk: Buffer) => { events.push(`data ${chunk.toString()}`) },
          onResponseEnd: () => { events.push('end'); resolve() },
          onResponseError: (_c: unknown, err: Error) => { events.push(`error ${err.message}`); resolve() }
        })
        events.push('dispatch returned')
      })
      await done
      orders.push(events)
    }
    assert.deepEqual(orders[0], orders[1])
    assert.deepEqual(orders[0], ['start', 'head 200', 'dispatch returned', 'data stored', 'end'])
  })
})

describe('retry(): conduit and undici agree', () => {
  it('resume a download with an unquoted ETag to the same bytes', async (t) => {
    const ranges: string[] = []
    const server = await startTcpServer((socket) => socket.once('data', (head: Buffer) => {
      const range = /\r\nrange: ([^\r]+)/i.exec(head.toString('latin1'))?.[1]
      if (range === undefined) {
        socket.write('HTTP/1.1 200 OK\r\netag: plain-tag\r\ncontent-length: 10\r\n\r\nhello')
        setImmediate(() => socket.destroy())
        return
      }
      ranges.push(`${range} ${/\r\nif-match: ([^\r]+)/i.exec(head.toString('latin1'))?.[1] ?? ''}`)
      socket.end('HTTP/1.1 206 Partial Content\r\netag: plain-tag\r\ncontent-range: bytes 5-9/10\r\ncontent-length: 5\r\n\r\nworld')
    }))
    const both = pair([interceptors.retry({ minTimeout: 1 })], [undici.interceptors.retry({ minTimeout: 1 })])
    t.after(async () => { await both.close(); await server.close() })
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/file' })
    assert.deepEqual(ours, theirs)
    assert.equal(ours.body, 'helloworld')
    assert.deepEqual(ranges, ['bytes=5-9 plain-tag', 'bytes=5-9 plain-tag'])
  })
})
