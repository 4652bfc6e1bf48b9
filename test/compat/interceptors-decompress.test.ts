/**
 * Differential tests: conduit's decompress interceptor against undici's, on the same local server.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import zlib from 'node:zlib'
import { interceptors } from '../../src/index.js'
import { startHttpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { compare, pair, undici } from './interceptors-harness.js'
import type { Pair } from './interceptors-harness.js'

const TEXT = 'the same words, again and again. '.repeat(200)
const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  'x-gzip': (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b)
}

describe('decompress(): conduit and undici agree', () => {
  let server: TestServer
  let both: Pair

  before(async () => {
    server = await startHttpServer((req, res) => {
      const url = new URL(req.url!, 'http://x')
      const codings = (url.searchParams.get('c') ?? '').split(',').filter(Boolean)
      const body = codings.reduce<Buffer>((bytes, c) => encoders[c] === undefined ? bytes : encoders[c]!(bytes), Buffer.from(TEXT))
      res.writeHead(Number(url.searchParams.get('status') ?? 200), { 'content-encoding': codings.join(', '), 'content-type': 'text/plain' })
      res.end(url.pathname === '/truncated' ? body.subarray(0, body.length - 10) : body)
    })
    both = pair([interceptors.decompress()], [undici.interceptors.decompress()])
  })
  after(async () => { await both.close(); await server.close() })

  for (const codings of ['gzip', 'x-gzip', 'deflate', 'br', 'gzip,br', 'deflate,gzip,br']) {
    it(`decodes ${codings} the same way and drops the same headers`, async () => {
      const [ours, theirs] = await compare(both, { origin: server.origin, path: `/?c=${codings}` }, ['content-encoding', 'content-length', 'content-type'])
      assert.deepEqual(ours, theirs)
      assert.equal(ours.body, TEXT)
    })
  }

  it('leaves an error answer encoded', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/?c=gzip&status=500' }, ['content-encoding'])
    assert.deepEqual(ours, theirs)
    assert.equal(ours.headers!['content-encoding'], 'gzip')
  })

  it('passes an unknown coding through', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/?c=snappy' }, ['content-encoding'])
    assert.deepEqual(ours, theirs)
  })

  it('fails a truncated gzip body', async () => {
    const [ours, theirs] = await compare(both, { origin: server.origin, path: '/truncated?c=gzip' })
    assert.equal(ours.error, theirs.error)
    assert.equal(ours.error, 'Z_BUF_ERROR')
  })
})
