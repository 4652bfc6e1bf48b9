import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable, Writable } from 'node:stream'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import type http from 'node:http'
import { Agent, Client, fetch, interceptors } from '../../../src/index.js'
import { InvalidArgumentError } from '../../../src/errors.js'
import { TransferProgress } from '../../../src/api/transfer-progress.js'
import type { TransferProgressEvent } from '../../../src/index.js'
import { startHttpServer, trustTestCa } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { startH2sServer } from '../../helpers/h2-server.js'
import type { H2TestServer } from '../../helpers/h2-server.js'

const MiB = 1024 * 1024
const big = Buffer.alloc(MiB, 'abcdefghijklmnopqrstuvwxyz')
const bigDigest = createHash('sha256').update(big).digest('hex')

/** Checks what every transfer's reports promise: counts that never go back, and a last one at the end. */
function assertReports (events: TransferProgressEvent[], loaded: number, total: number | null): void {
  assert.ok(events.length >= 1, 'at least the final report')
  for (let i = 1; i < events.length; i++) assert.ok(events[i]!.loaded >= events[i - 1]!.loaded, `report ${i} goes back: ${JSON.stringify(events)}`)
  for (const event of events) {
    assert.equal(event.total, total)
    assert.ok(Number.isFinite(event.rate) && event.rate >= 0)
    if (total !== null) assert.ok(event.loaded <= total)
  }
  assert.equal(events[events.length - 1]!.loaded, loaded)
  // Each report is a fresh object the caller may keep.
  assert.equal(new Set(events).size, events.length)
}

/** Answers /big with 1 MiB in 64 KiB writes (content-length or chunked), /echo with a digest of what it read. */
function origin (req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/echo') {
    const hash = createHash('sha256')
    let size = 0
    req.on('data', (chunk: Buffer) => { hash.update(chunk); size += chunk.length })
    req.on('end', () => res.end(`${size} ${hash.digest('hex')}`))
    return
  }
  if (url.pathname === '/redirect') {
    req.resume()
    res.writeHead(307, { location: '/echo' }).end()
    return
  }
  const chunked = url.searchParams.has('chunked')
  res.writeHead(200, chunked ? {} : { 'content-length': String(big.length) })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  let offset = 0
  const writeNext = (): void => {
    while (offset < big.length) {
      const part = big.subarray(offset, offset + 64 * 1024)
      offset += part.length
      if (!res.write(part)) {
        res.once('drain', writeNext)
        return
      }
    }
    res.end()
  }
  writeNext()
}

describe('transfer progress (onUploadProgress / onDownloadProgress)', () => {
  let server: TestServer<http.Server>
  let client: Client
  before(async () => {
    server = await startHttpServer(origin)
    client = new Client(server.origin)
  })
  after(async () => {
    await client.close()
    await server.close()
  })

  it('request(): download reports climb to the content-length, the last one before the body ends', async () => {
    const events: TransferProgressEvent[] = []
    const { body } = await client.request({ path: '/big', method: 'GET', onDownloadProgress: (event) => events.push(event) })
    let received = 0
    let reportsAtEnd = -1
    body.on('data', (chunk: Buffer) => { received += chunk.length })
    await new Promise<void>((resolve, reject) => body.on('end', () => { reportsAtEnd = events.length; resolve() }).on('error', reject))
    assert.equal(received, MiB)
    assertReports(events, MiB, MiB)
    assert.equal(reportsAtEnd, events.length)
    assert.ok(events.length >= 2, 'a report at the first chunk and one at the end')
  })

  it('request(): a chunked body reports a null total; HEAD reports zero of zero', async () => {
    const chunked: TransferProgressEvent[] = []
    const res = await client.request({ path: '/big?chunked', method: 'GET', onDownloadProgress: (event) => chunked.push(event) })
    await res.body.arrayBuffer()
    assertReports(chunked, MiB, null)
    const head: TransferProgressEvent[] = []
    const headRes = await client.request({ path: '/big', method: 'HEAD', onDownloadProgress: (event) => head.push(event) })
    await headRes.body.text()
    assert.deepEqual(head.map(({ loaded, total }) => ({ loaded, total })), [{ loaded: 0, total: 0 }])
  })

  it('request(): upload reports reach the body size before the response arrives, for bytes, a stream with a declared length and one without', async () => {
    for (const [body, headers, total] of [
      [big, {}, MiB],
      [Readable.from([big.subarray(0, MiB / 2), big.subarray(MiB / 2)]), { 'content-length': String(MiB) }, MiB],
      [Readable.from([big.subarray(0, MiB / 2), big.subarray(MiB / 2)]), {}, null]
    ] as const) {
      const events: TransferProgressEvent[] = []
      let reportsAtResponse = -1
      const res = await client.request({ path: '/echo', method: 'POST', body, headers, onUploadProgress: (event) => events.push(event) })
      reportsAtResponse = events.length
      assert.equal(await res.body.text(), `${MiB} ${bigDigest}`)
      assertReports(events, MiB, total)
      assert.equal(reportsAtResponse, events.length, 'every upload report comes before the response head')
    }
  })

  it('stream(): download reports as the body goes into the Writable', async () => {
    const events: TransferProgressEvent[] = []
    let written = 0
    await client.stream({ path: '/big', method: 'GET', onDownloadProgress: (event) => events.push(event) }, () => new Writable({
      write (chunk: Buffer, _encoding, callback) { written += chunk.length; callback() }
    }))
    assert.equal(written, MiB)
    assertReports(events, MiB, MiB)
  })

  it('fetch(): upload and download reports, counted once over a 307 that sends the body again', async () => {
    const up: TransferProgressEvent[] = []
    const down: TransferProgressEvent[] = []
    const response = await fetch(`${server.origin}/redirect`, {
      method: 'POST', body: big, dispatcher: client, onUploadProgress: (event) => up.push(event), onDownloadProgress: (event) => down.push(event)
    })
    const text = await response.text()
    assert.equal(text, `${MiB} ${bigDigest}`)
    assertReports(up, MiB, MiB)
    assertReports(down, text.length, text.length)
    const big2: TransferProgressEvent[] = []
    await (await fetch(`${server.origin}/big`, { dispatcher: client, onDownloadProgress: (event) => big2.push(event) })).arrayBuffer()
    assertReports(big2, MiB, MiB)
  })

  it('a resumed download (retry with Range) continues its count and never goes back', async () => {
    let attempt = 0
    const cut = await startHttpServer((req, res) => {
      attempt++
      const range = req.headers.range
      if (range === undefined) {
        res.writeHead(200, { 'content-length': String(MiB), etag: '"v1"', 'accept-ranges': 'bytes' })
        res.write(big.subarray(0, MiB / 2), () => setImmediate(() => res.socket?.destroy()))
        return
      }
      const start = Number(/bytes=(\d+)-/.exec(range)![1])
      res.writeHead(206, { 'content-length': String(MiB - start), 'content-range': `bytes ${start}-${MiB - 1}/${MiB}`, etag: '"v1"' })
      res.end(big.subarray(start))
    })
    const agent = new Agent().compose(interceptors.retry({ minTimeout: 1, maxRetries: 2 }))
    try {
      const events: TransferProgressEvent[] = []
      const res = await agent.request({ origin: cut.origin, path: '/', method: 'GET', onDownloadProgress: (event) => events.push(event) })
      const bytes = Buffer.from(await res.body.arrayBuffer())
      assert.equal(createHash('sha256').update(bytes).digest('hex'), bigDigest)
      assert.equal(attempt, 2)
      assertReports(events, MiB, MiB)
    } finally {
      await agent.close()
      await cut.close()
    }
  })

  it('a callback that throws fails the request with what it threw; the connection serves the next request', async () => {
    const boom = new Error('progress callback failed')
    await assert.rejects(async () => {
      const res = await client.request({ path: '/big', method: 'GET', onDownloadProgress: () => { throw boom } })
      await res.body.text()
    }, (err) => err === boom)
    await assert.rejects(client.request({ path: '/echo', method: 'POST', body: big, onUploadProgress: () => { throw boom } }), (err) => err === boom)
    await assert.rejects(fetch(`${server.origin}/big`, { dispatcher: client, onDownloadProgress: () => { throw boom } }).then(async (r) => await r.text()), (err) => err === boom)
    const res = await client.request({ path: '/echo', method: 'POST', body: 'ok' })
    assert.match(await res.body.text(), /^2 /)
  })

  it('refuses a progress option that is not a function before sending anything: InvalidArgumentError naming it, TypeError from fetch()', async () => {
    const seen = server.requests.length
    await assert.rejects(client.request({ path: '/big', method: 'GET', onDownloadProgress: 'yes' as never }), (err: Error) => {
      assert.ok(err instanceof InvalidArgumentError)
      assert.match(err.message, /onDownloadProgress must be a function, got "yes"/)
      return true
    })
    await assert.rejects(client.stream({ path: '/', method: 'GET', onUploadProgress: 42 as never }, () => new Writable()), /onUploadProgress must be a function, got 42/)
    await assert.rejects(fetch(`${server.origin}/big`, { dispatcher: client, onUploadProgress: {} as never }), (err: Error) => {
      assert.equal(err.constructor, TypeError)
      assert.match(err.message, /fetch: onUploadProgress must be a function/)
      return true
    })
    assert.equal(server.requests.length, seen)
  })
})

describe('TransferProgress', () => {
  it('never reports fewer bytes than before, never more than the total, and ends with one report of the final count (property)', () => {
    fc.assert(fc.property(
      fc.option(fc.nat({ max: 10_000 }), { nil: null }),
      fc.array(fc.nat({ max: 4_000 }), { maxLength: 40 }),
      fc.nat({ max: 40 }),
      (total, chunks, finishAt) => {
        const events: TransferProgressEvent[] = []
        const progress = new TransferProgress((event) => events.push(event), total)
        let sent = 0
        chunks.forEach((bytes, i) => {
          // A finish in the middle stands for the end of a first attempt; what a retry sends again is not counted.
          if (i === finishAt) progress.finish()
          progress.add(bytes)
          if (i < finishAt) sent += bytes
        })
        progress.finish()
        const expected = total === null ? sent : Math.min(sent, total)
        assertReports(events, expected, total)
        assert.ok(events.filter((event) => event.loaded === expected).length <= 2)
      }
    ))
  })
})

describe('transfer progress over HTTP/2', () => {
  let server: H2TestServer
  let agent: Agent
  before(async () => {
    server = await startH2sServer((h2stream, headers) => {
      if (headers[':path'] === '/echo') {
        const hash = createHash('sha256')
        let size = 0
        h2stream.on('data', (chunk: Buffer) => { hash.update(chunk); size += chunk.length })
        h2stream.on('end', () => {
          h2stream.respond({ ':status': 200 })
          h2stream.end(`${size} ${hash.digest('hex')}`)
        })
        return
      }
      h2stream.respond({ ':status': 200, 'content-length': String(MiB) })
      h2stream.end(big)
    })
    agent = new Agent({ allowH2: true, connect: trustTestCa })
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  it('reports a 1 MiB download and a 1 MiB upload on one session', async () => {
    const down: TransferProgressEvent[] = []
    const res = await agent.request({ origin: server.origin, path: '/big', method: 'GET', onDownloadProgress: (event) => down.push(event) })
    assert.equal((await res.body.arrayBuffer()).byteLength, MiB)
    assertReports(down, MiB, MiB)
    const up: TransferProgressEvent[] = []
    const echo = await agent.request({ origin: server.origin, path: '/echo', method: 'POST', body: big, onUploadProgress: (event) => up.push(event) })
    assert.equal(await echo.body.text(), `${MiB} ${bigDigest}`)
    assertReports(up, MiB, MiB)
    assert.equal(server.sessions, 1)
  })
})
