/**
 * The routes the fetch tests talk to, on a real server on 127.0.0.1.
 */

import type http from 'node:http'
import zlib from 'node:zlib'
import { after, before } from 'node:test'
import { Agent } from '../../../src/dispatcher/agent.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

function readBody (req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

const ENCODERS: Record<string, (data: Buffer) => Buffer> = {
  gzip: (data) => zlib.gzipSync(data),
  deflate: (data) => zlib.deflateSync(data),
  'deflate-raw': (data) => zlib.deflateRawSync(data),
  br: (data) => zlib.brotliCompressSync(data)
}

/** The text every encoded route sends. */
export const ENCODED_TEXT = 'compressed body '.repeat(200)

/** Starts the fetch test server. `other` (optional) is the origin used for cross-origin redirects. */
export async function startFetchServer (): Promise<TestServer<http.Server>> {
  const server = await startHttpServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const route = url.pathname
    if (route === '/text') {
      res.setHeader('content-type', 'text/plain; charset=utf-8')
      res.setHeader('x-custom', 'yes')
      res.end('hello')
    } else if (route === '/json') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ ok: true, items: [1, 2, 3] }))
    } else if (route === '/echo') {
      const body = await readBody(req)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('latin1'), length: body.length }))
    } else if (route === '/mirror') {
      // Sends the request body back with the request's Content-Type, for round trips.
      const body = await readBody(req)
      res.setHeader('content-type', req.headers['content-type'] ?? 'application/octet-stream')
      res.end(body)
    } else if (route === '/count') {
      let total = 0
      req.on('data', (chunk: Buffer) => { total += chunk.length })
      req.on('end', () => res.end(String(total)))
    } else if (route === '/status') {
      res.statusCode = Number(url.searchParams.get('code') ?? '200')
      res.end(res.statusCode === 204 || res.statusCode === 304 ? undefined : `status ${res.statusCode}`)
    } else if (route === '/redirect') {
      const status = Number(url.searchParams.get('status') ?? '302')
      res.statusCode = status
      res.setHeader('location', url.searchParams.get('to') ?? '/echo')
      res.end('redirecting')
    } else if (route === '/loop') {
      res.statusCode = 302
      res.setHeader('location', `/loop?n=${Number(url.searchParams.get('n') ?? '0') + 1}`)
      res.end()
    } else if (route === '/chain') {
      const left = Number(url.searchParams.get('left') ?? '0')
      if (left > 0) {
        res.statusCode = 301
        res.setHeader('location', `/chain?left=${left - 1}`)
        res.end()
      } else {
        res.end('end of chain')
      }
    } else if (route === '/cookies') {
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly'])
      res.end('cookies')
    } else if (route.startsWith('/encoded/')) {
      const coding = route.slice('/encoded/'.length)
      const encode = ENCODERS[coding]!
      res.setHeader('content-encoding', coding === 'deflate-raw' ? 'deflate' : coding)
      res.setHeader('content-type', 'text/plain')
      res.end(encode(Buffer.from(ENCODED_TEXT)))
    } else if (route === '/encoded-twice') {
      res.setHeader('content-encoding', 'gzip, br')
      res.end(zlib.brotliCompressSync(zlib.gzipSync(Buffer.from(ENCODED_TEXT))))
    } else if (route === '/unknown-coding') {
      res.setHeader('content-encoding', 'x-unknown')
      res.end('raw bytes')
    } else if (route === '/bad-gzip') {
      res.setHeader('content-encoding', 'gzip')
      res.end('this is not gzip at all')
    } else if (route === '/bad-gzip-big') {
      // A valid gzip header, then garbage: the decoder fails while more bytes keep arriving.
      res.setHeader('content-encoding', 'gzip')
      res.write(zlib.gzipSync(Buffer.alloc(100, 1)).subarray(0, 10))
      res.end(Buffer.alloc(2 * 1024 * 1024, 0xff))
    } else if (route === '/big') {
      const size = Number(url.searchParams.get('size') ?? '1048576')
      res.setHeader('content-length', size)
      const chunk = Buffer.alloc(65536, 97)
      let sent = 0
      const write = (): void => {
        while (sent < size) {
          const piece = chunk.subarray(0, Math.min(chunk.length, size - sent))
          sent += piece.length
          if (!res.write(piece)) {
            res.once('drain', write)
            return
          }
        }
        res.end()
      }
      write()
    } else if (route === '/partial') {
      // Headers and part of the body, then silence: for aborts and failures while reading.
      res.setHeader('content-length', '100000')
      res.write('first part')
    } else if (route === '/hang') {
      // Never answers.
    } else if (route === '/cut') {
      res.setHeader('content-length', '100000')
      res.write('some bytes', () => req.socket.destroy())
    } else {
      res.statusCode = 404
      res.end('not found')
    }
  })
  return server
}

/** The fetch server and the Agent the tests of one describe block share. */
export interface FetchServerContext {
  server: TestServer<http.Server>
  agent: Agent
}

/**
 * Starts the fetch server and an Agent before the first test of the enclosing describe block
 * and closes both after its last; the returned object is filled in once the block starts.
 */
export function useFetchServer (): FetchServerContext {
  const ctx = {} as FetchServerContext
  before(async () => {
    ctx.server = await startFetchServer()
    ctx.agent = new Agent()
  })
  after(async () => {
    await ctx.agent.close()
    await ctx.server.close()
  })
  return ctx
}
