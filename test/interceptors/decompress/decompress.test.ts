import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import zlib from 'node:zlib'
import fc from 'fast-check'
import { Agent, interceptors } from '../../../src/index.js'
import type { Dispatcher } from '../../../src/index.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

const TEXT = 'conduit decodes this text. '.repeat(400)
const hasZstd = typeof (zlib as unknown as Record<string, unknown>).zstdCompressSync === 'function'

const encoders: Record<string, (input: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  'x-gzip': (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  ...(hasZstd ? { zstd: (b: Buffer) => (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync(b) } : {})
}

/** Applies `codings` in the order listed, as a server would announce them in Content-Encoding. */
function encode (codings: string[], input: Buffer): Buffer {
  return codings.reduce((bytes, coding) => encoders[coding]!(bytes), input)
}

describe('interceptors.decompress()', () => {
  let server: TestServer
  let agent: Agent
  let dispatcher: Dispatcher

  before(async () => {
    server = await startHttpServer((req, res) => {
      const url = new URL(req.url!, 'http://x')
      const codings = (url.searchParams.get('codings') ?? '').split(',').filter((c) => c !== '')
      const status = Number(url.searchParams.get('status') ?? 200)
      const body = codings.length === 0 ? Buffer.from(TEXT) : encode(codings, Buffer.from(TEXT))
      if (url.pathname === '/truncated') {
        res.writeHead(200, { 'content-encoding': codings.join(', ') })
        res.end(body.subarray(0, body.length - 20))
        return
      }
      if (url.pathname === '/corrupt') {
        res.writeHead(200, { 'content-encoding': 'gzip' })
        res.end(Buffer.from('this is not gzip at all'))
        return
      }
      if (url.pathname === '/empty') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': '0' })
        res.end()
        return
      }
      res.writeHead(status, { 'content-encoding': codings.join(', ') || 'identity', 'content-length': String(body.length), 'x-codings': codings.join(',') })
      res.end(status === 204 || status === 304 ? undefined : body)
    })
    agent = new Agent()
    dispatcher = agent.compose(interceptors.decompress())
  })
  after(async () => { await agent.close(); await server.close() })

  for (const coding of Object.keys(encoders)) {
    it(`decodes a ${coding} body and drops Content-Encoding and Content-Length`, async () => {
      const { statusCode, headers, body } = await dispatcher.request({ origin: server.origin, path: `/?codings=${coding}`, method: 'GET' })
      assert.equal(statusCode, 200)
      assert.equal(await body.text(), TEXT)
      assert.equal(headers['content-encoding'], undefined)
      assert.equal(headers['content-length'], undefined)
      assert.equal(headers['x-codings'], coding)
    })
  }

  it('undoes stacked codings in reverse order', async () => {
    const { body } = await dispatcher.request({ origin: server.origin, path: '/?codings=deflate,gzip,br', method: 'GET' })
    assert.equal(await body.text(), TEXT)
  })

  it('decodes any stack of up to five supported codings (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom(...Object.keys(encoders)), { minLength: 1, maxLength: 5 }), async (codings) => {
      const { body } = await dispatcher.request({ origin: server.origin, path: `/?codings=${codings.join(',')}`, method: 'GET' })
      assert.equal(await body.text(), TEXT)
    }), { numRuns: 25 })
  })

  it('refuses more than five stacked codings with a TypeError naming them', async () => {
    await assert.rejects(dispatcher.request({ origin: server.origin, path: '/?codings=gzip,gzip,gzip,gzip,gzip,gzip', method: 'GET' }), (err: Error) => {
      assert.ok(err instanceof TypeError)
      assert.match(err.message, /^decompress\(\): too many content codings \(6, at most 5\)/)
      return true
    })
  })

  for (const coding of ['gzip', 'deflate', 'br']) {
    it(`fails a ${coding} body that was cut short`, async () => {
      const { body } = await dispatcher.request({ origin: server.origin, path: `/truncated?codings=${coding}`, method: 'GET' })
      await assert.rejects(body.text(), (err: Error & { code?: string }) => typeof err.code === 'string' && err.code.startsWith('Z_') || /unexpected end/.test(err.message))
    })
  }

  it('fails a corrupt body with the decoder error', async () => {
    const { body } = await dispatcher.request({ origin: server.origin, path: '/corrupt', method: 'GET' })
    await assert.rejects(body.text(), { code: 'Z_DATA_ERROR' })
  })

  it('turns an empty encoded body into an empty body', async () => {
    const { body } = await dispatcher.request({ origin: server.origin, path: '/empty', method: 'GET' })
    assert.equal(await body.text(), '')
  })

  it('leaves error answers encoded unless skipErrorResponses is false', async () => {
    const skipped = await dispatcher.request({ origin: server.origin, path: '/?codings=gzip&status=500', method: 'GET' })
    assert.equal(skipped.headers['content-encoding'], 'gzip')
    assert.deepEqual(Buffer.from(await skipped.body.arrayBuffer()), zlib.gzipSync(Buffer.from(TEXT)))
    const decoding = agent.compose(interceptors.decompress({ skipErrorResponses: false }))
    const decoded = await decoding.request({ origin: server.origin, path: '/?codings=gzip&status=500', method: 'GET' })
    assert.equal(await decoded.body.text(), TEXT)
  })

  it('leaves statuses listed in skipStatusCodes encoded', async () => {
    const decoding = agent.compose(interceptors.decompress({ skipStatusCodes: [201] }))
    const { headers, body } = await decoding.request({ origin: server.origin, path: '/?codings=gzip&status=201', method: 'GET' })
    assert.equal(headers['content-encoding'], 'gzip')
    assert.equal(zlib.gunzipSync(Buffer.from(await body.arrayBuffer())).toString(), TEXT)
  })

  it('passes an unknown coding through untouched', async (t) => {
    const raw = await startTcpServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-encoding: snappy\r\ncontent-length: 3\r\n\r\nabc')))
    t.after(() => raw.close())
    const { headers, body } = await dispatcher.request({ origin: raw.origin, path: '/', method: 'GET' })
    assert.equal(headers['content-encoding'], 'snappy')
    assert.equal(await body.text(), 'abc')
  })

  it('fails with ResponseExceededMaxSizeError once the decoded body passes maxSize', async () => {
    const limited = agent.compose(interceptors.decompress({ maxSize: 1000 }))
    const { body } = await limited.request({ origin: server.origin, path: '/?codings=gzip', method: 'GET' })
    await assert.rejects(body.text(), { code: 'LIB_ERR_RES_EXCEEDED_MAX_SIZE', message: /maxSize \(1000 bytes\)/ })
  })

  it('keeps decoded data back while the caller is paused', async () => {
    const { body } = await dispatcher.request({ origin: server.origin, path: '/?codings=br', method: 'GET' })
    body.pause()
    await new Promise((resolve) => setImmediate(resolve))
    const chunks: Buffer[] = []
    for await (const chunk of body) chunks.push(chunk as Buffer)
    assert.equal(Buffer.concat(chunks).toString(), TEXT)
  })

  it('refuses bad options naming the value', () => {
    assert.throws(() => interceptors.decompress({ maxSize: -1 }), { code: 'LIB_ERR_INVALID_ARG', message: 'decompress(): maxSize must be a non-negative integer (0: no limit), got -1' })
    assert.throws(() => interceptors.decompress({ skipStatusCodes: 204 as never }), { message: 'decompress(): skipStatusCodes must be an array of status codes, got 204' })
    assert.throws(() => interceptors.decompress({ skipStatusCodes: ['204'] as never }), { message: 'decompress(): skipStatusCodes must hold status codes (100-999), got "204"' })
    assert.throws(() => interceptors.decompress({ skipErrorResponses: 'no' as never }), { message: 'decompress(): skipErrorResponses must be a boolean, got "no"' })
    assert.throws(() => interceptors.decompress('gzip' as never), { message: 'decompress(): options must be an object, got "gzip"' })
  })

  it('logs its decisions under NODE_DEBUG=conduit:decompress', async () => {
    const script = `
      import http from 'node:http'
      import zlib from 'node:zlib'
      import { Agent, interceptors } from ${JSON.stringify(indexUrl)}
      const server = http.createServer((req, res) => { res.writeHead(200, { 'content-encoding': 'gzip' }); res.end(zlib.gzipSync('hi')) })
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const agent = new Agent()
      const { body } = await agent.compose(interceptors.decompress()).request({ origin: 'http://127.0.0.1:' + server.address().port, path: '/', method: 'GET' })
      if (await body.text() !== 'hi') process.exit(3)
      await agent.close()
      server.close()
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit:decompress')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /CONDUIT:DECOMPRESS \d+: decoding gzip body of a 200 answer/)
  })
})
