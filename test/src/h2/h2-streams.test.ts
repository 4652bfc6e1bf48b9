import { describe, it, after } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import { Readable } from 'node:stream'
import { Blob } from 'node:buffer'
import { createHash } from 'node:crypto'
import { H2CClient } from '../../../src/index.js'
import type { IncomingHeaders } from '../../../src/index.js'
import { startH2cServer, respond } from '../../helpers/h2-server.js'

/** Answers with the length and sha256 of the request body, and the request's content-length. */
function echoDigest (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  const hash = createHash('sha256')
  let length = 0
  stream.on('data', (chunk: Buffer) => { hash.update(chunk); length += chunk.length })
  stream.on('end', () => respond(stream, 200, JSON.stringify({ length, sha: hash.digest('hex'), cl: headers['content-length'] ?? null })))
}

function sha (data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

describe('HTTP/2: request bodies, trailers and information', async () => {
  const server = await startH2cServer((stream, headers) => {
    const path = String(headers[':path'])
    if (headers.expect === '100-continue') stream.additionalHeaders({ ':status': 100 })
    if (path === '/echo') return echoDigest(stream, headers)
    if (path === '/trailers') {
      stream.respond({ ':status': 200 }, { waitForTrailers: true })
      stream.on('wantTrailers', () => stream.sendTrailers({ 'x-checksum': 'abc' }))
      stream.end('body')
      return
    }
    if (path === '/early-hints') {
      stream.additionalHeaders({ ':status': 103, link: '</style.css>; rel=preload' })
      respond(stream, 200, 'final')
      return
    }
    if (path === '/headers') return respond(stream, 200, JSON.stringify(headers))
    respond(stream, 404, 'no')
  })
  const client = new H2CClient(server.origin, { headersTimeout: 10_000 })
  after(async () => { await client.close(); await server.close() })

  const big = Buffer.alloc(1024 * 1024 + 17, 7)
  const cases: Array<[string, () => unknown, Buffer, string | null]> = [
    ['a string', () => 'hello h2', Buffer.from('hello h2'), '8'],
    ['a Buffer larger than every flow-control window', () => big, big, String(big.length)],
    ['a Readable stream', () => Readable.from([big.subarray(0, 300_000), big.subarray(300_000)]), big, null],
    ['an async iterable', () => (async function * () { yield Buffer.from('ab'); yield Buffer.from('cd') })(), Buffer.from('abcd'), null],
    ['a Blob', () => new Blob([big]), big, String(big.length)]
  ]
  for (const [name, body, expected, cl] of cases) {
    it(`sends ${name} as the request body`, async () => {
      const res = await client.request({ path: '/echo', method: 'POST', body: body() as string })
      assert.deepEqual(await res.body.json(), { length: expected.length, sha: sha(expected), cl })
    })
  }

  it('turns request headers into HTTP/2 fields: pseudo-headers, no connection-specific ones', async () => {
    const res = await client.request({
      path: '/headers',
      method: 'GET',
      // A keep-alive header is refused for every version, as undici does (see the HTTP/1 head rules).
      headers: { 'x-one': '1', connection: 'keep-alive', te: 'gzip', cookie: ['a=1', 'b=2'] }
    })
    const seen = await res.body.json() as Record<string, string>
    assert.equal(seen[':method'], 'GET')
    assert.equal(seen[':path'], '/headers')
    assert.equal(seen[':scheme'], 'http')
    assert.equal(seen[':authority'], new URL(server.origin).host)
    assert.equal(seen['x-one'], '1')
    assert.equal(seen.cookie, 'a=1; b=2')
    for (const name of ['connection', 'keep-alive', 'te', 'host']) assert.equal(seen[name], undefined, name)
  })

  it('delivers trailers at the end of the response', async () => {
    const res = await client.request({ path: '/trailers', method: 'GET' })
    assert.equal(await res.body.text(), 'body')
    assert.deepEqual({ ...res.trailers }, { 'x-checksum': 'abc' })
  })

  it('delivers 103 Early Hints to onInfo before the final response', async () => {
    const infos: Array<{ statusCode: number, headers: IncomingHeaders }> = []
    const res = await client.request({ path: '/early-hints', method: 'GET', onInfo: (info) => infos.push(info) })
    assert.equal(res.statusCode, 200)
    assert.equal(await res.body.text(), 'final')
    assert.deepEqual(infos, [{ statusCode: 103, headers: { link: '</style.css>; rel=preload' } }])
  })

  it('sends the body only after 100 Continue when expectContinue is set', async () => {
    const res = await client.request({ path: '/echo', method: 'PUT', body: 'waited', expectContinue: true })
    assert.deepEqual(await res.body.json(), { length: 6, sha: sha(Buffer.from('waited')), cl: '6' })
  })

  it('refuses an upgrade other than websocket clearly: HTTP/2 has no Upgrade, and only WebSockets have an extended CONNECT', async () => {
    const error = await new Promise<Error>((resolve) => {
      client.dispatch({ path: '/', method: 'GET', upgrade: 'chat/2' }, {
        onRequestUpgrade: () => resolve(new Error('upgraded')),
        onResponseError: (_controller, err) => resolve(err)
      })
    })
    assert.equal((error as Error & { code?: string }).code, 'LIB_ERR_NOT_SUPPORTED')
    assert.match(error.message, /not supported over HTTP\/2/)
  })
})
