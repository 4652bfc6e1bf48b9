import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import zlib from 'node:zlib'
import { Agent, interceptors } from '../../../src/index.js'
import type { DispatchController, DispatchHandler } from '../../../src/handler.js'
import { ResponseExceededMaxSizeError } from '../../../src/errors.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

const MiB = 1024 * 1024
const ZEROS = Buffer.alloc(MiB)

/**
 * A gzip member that decodes to 1 GiB of zeros, about 1 MiB on the wire: one deflate block of
 * 1 MiB of zeros, ended with a full flush so that it decodes the same wherever it stands, sent
 * 1024 times, then an empty final block and the real CRC and size.
 */
function gigabyteGzipBomb (): Buffer[] {
  const block = zlib.deflateRawSync(ZEROS, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH })
  let crc = 0
  for (let i = 0; i < 1024; i++) crc = zlib.crc32(ZEROS, crc)
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(crc >>> 0, 0)
  trailer.writeUInt32LE((1024 * MiB) % 2 ** 32, 4)
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
  return [header, ...Array.from({ length: 1024 }, () => block), zlib.deflateRawSync(Buffer.alloc(0)), trailer]
}

const zstdCompress = (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync
const FAST = { level: 1 }
const encoders: Record<string, (input: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b, FAST),
  deflate: (b) => zlib.deflateSync(b, FAST),
  br: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
  ...(zstdCompress === undefined ? {} : { zstd: zstdCompress })
}

/** `size` bytes of zeros with `codings` applied in the order listed, as Content-Encoding names them. */
function bomb (codings: string[], size: number): Buffer[] {
  return [codings.reduce<Buffer>((bytes, coding) => encoders[coding]!(bytes), Buffer.alloc(size))]
}

/** Writes `chunks` with backpressure, stopping if the client goes away. */
async function stream (res: http.ServerResponse, chunks: Buffer[]): Promise<void> {
  let gone = false
  res.once('close', () => { gone = true })
  for (const chunk of chunks) {
    if (gone) return
    if (!res.write(chunk)) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve) })
  }
  res.end()
}

describe('decompress() bounds the decoded body by the transport\'s maxResponseSize', () => {
  let server: TestServer<http.Server>
  const bodies = new Map<string, { encoding: string, chunks: Buffer[] }>()

  before(async () => {
    bodies.set('/gigabyte', { encoding: 'gzip', chunks: gigabyteGzipBomb() })
    for (const coding of Object.keys(encoders)) bodies.set(`/${coding}`, { encoding: coding, chunks: bomb([coding], 64 * MiB) })
    bodies.set('/layers', { encoding: 'gzip, br', chunks: bomb(['gzip', 'br'], 64 * MiB) })
    bodies.set('/small', { encoding: 'gzip', chunks: bomb(['gzip'], MiB) })
    server = await startHttpServer((req, res) => {
      const body = bodies.get(req.url ?? '')!
      res.writeHead(200, { 'content-encoding': body.encoding })
      void stream(res, body.chunks)
    })
  })
  after(() => server.close())

  /** Dispatches GET `path` with a handler that counts what reaches it; resolves with the count and how it ended. */
  async function countDelivered (maxResponseSize: number, path: string): Promise<{ delivered: number, error: Error | null }> {
    const agent = new Agent({ maxResponseSize })
    const dispatcher = agent.compose(interceptors.decompress())
    try {
      return await new Promise((resolve) => {
        let delivered = 0
        const handler: DispatchHandler = {
          onResponseData: (_c: DispatchController, chunk: Buffer) => { delivered += chunk.length },
          onResponseEnd: () => resolve({ delivered, error: null }),
          onResponseError: (_c: DispatchController, error: Error) => resolve({ delivered, error })
        }
        dispatcher.dispatch({ origin: server.origin, path, method: 'GET' }, handler)
      })
    } finally {
      await agent.destroy()
    }
  }

  it('fails a gzip bomb of 1 GiB (about 1 MiB on the wire) once 8 MiB are decoded, delivering no more than that', async () => {
    const limit = 8 * MiB
    const wire = bodies.get('/gigabyte')!.chunks.reduce((n, c) => n + c.length, 0)
    assert.ok(wire < limit, `the bomb is ${wire} bytes on the wire, under the limit`)
    const { delivered, error } = await countDelivered(limit, '/gigabyte')
    assert.ok(error instanceof ResponseExceededMaxSizeError, String(error))
    assert.equal((error as ResponseExceededMaxSizeError).code, 'LIB_ERR_RES_EXCEEDED_MAX_SIZE')
    assert.match(error.message, /decoded response body exceeds maxResponseSize \(8388608 bytes\)/)
    assert.ok(delivered <= limit, `${delivered} bytes delivered`)
    assert.ok(delivered > 0)
  })

  it('rejects text() of the bomb through request() with the same error', async (t) => {
    const agent = new Agent({ maxResponseSize: 4 * MiB })
    t.after(() => agent.destroy())
    const res = await agent.compose(interceptors.decompress()).request({ origin: server.origin, path: '/gigabyte', method: 'GET' })
    assert.equal(res.statusCode, 200)
    await assert.rejects(res.body.text(), (err: Error) => err instanceof ResponseExceededMaxSizeError && /maxResponseSize \(4194304 bytes\)/.test(err.message))
  })

  for (const path of [...Object.keys(encoders).map((c) => `/${c}`), '/layers']) {
    it(`bounds a ${path.slice(1)} bomb of 64 MiB at 1 MiB decoded`, async () => {
      const { delivered, error } = await countDelivered(MiB, path)
      assert.ok(error instanceof ResponseExceededMaxSizeError, String(error))
      assert.ok(delivered <= MiB, `${delivered} bytes delivered`)
    })
  }

  it('delivers a decoded body within the limit whole', async () => {
    const { delivered, error } = await countDelivered(2 * MiB, '/small')
    assert.equal(error, null)
    assert.equal(delivered, MiB)
  })

  it('leaves maxSize in charge when it is the smaller limit, naming it', async () => {
    const agent = new Agent({ maxResponseSize: 8 * MiB })
    const dispatcher = agent.compose(interceptors.decompress({ maxSize: MiB }))
    try {
      const res = await dispatcher.request({ origin: server.origin, path: '/gzip', method: 'GET' })
      await assert.rejects(res.body.text(), (err: Error) => err instanceof ResponseExceededMaxSizeError && /exceeds maxSize \(1048576 bytes\)/.test(err.message))
    } finally {
      await agent.destroy()
    }
  })
})
