/**
 * What the snapshot tests share: temporary folders removed after the test, the hand-written
 * fixture files, a count of connection attempts, and a server with the responses recordings are
 * made of (JSON, binary, gzip, server-sent events in timed chunks, trailers, an echo).
 */

import diagnosticsChannel from 'node:diagnostics_channel'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'

type T = { after: (fn: () => unknown) => void }

/** A temporary folder removed once the test ended. */
export async function tempDir (t: T): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conduit-snapshots-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** The hand-written fixture `name` (from test/interceptors/snapshot/fixtures), copied into `dir`. */
export async function fixture (dir: string, name: string): Promise<string> {
  // The tests run compiled under dist/; the fixtures stay in the source tree.
  const source = fileURLToPath(new URL(`../../../../test/interceptors/snapshot/fixtures/${name}`, import.meta.url))
  const target = join(dir, name)
  await copyFile(source, target)
  return target
}

/** Counts the transport's connection attempts while `fn` runs. */
export async function countConnects (fn: () => Promise<void>): Promise<number> {
  let attempts = 0
  const onConnect = (): void => { attempts++ }
  diagnosticsChannel.subscribe('conduit:client:beforeConnect', onConnect)
  try {
    await fn()
  } finally {
    diagnosticsChannel.unsubscribe('conduit:client:beforeConnect', onConnect)
  }
  return attempts
}

/** Bytes the /bin route answers with: every byte value, so none is lost to a text encoding. */
export const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256))

/** The text the /gz route sends gzip-compressed. */
export const GZIP_TEXT = 'compressed on the wire, plain in a HAR file\n'.repeat(20)

/** The events /sse sends, one chunk each. */
export const EVENTS = ['data: one\n\n', 'data: two\n\n', 'data: three\n\n']

/**
 * A real origin: `/json`, `/bin`, `/gz`, `/sse` (events `gapMs` apart), `/trailers` (chunked
 * with a trailer), `/echo` (method, URL and body back as JSON), and `/count` (how many times it was asked).
 */
export async function recordingOrigin (t: T, gapMs = 0): Promise<TestServer & { hits: () => number }> {
  let hits = 0
  const server = await startHttpServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    switch (req.url?.split('?')[0]) {
      case '/json': res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ ok: true, url: req.url })); return
      case '/bin': res.setHeader('content-type', 'application/octet-stream'); res.end(BINARY); return
      case '/gz': res.setHeader('content-type', 'text/plain'); res.setHeader('content-encoding', 'gzip'); res.end(gzipSync(GZIP_TEXT)); return
      case '/sse': {
        res.setHeader('content-type', 'text/event-stream')
        for (const [i, event] of EVENTS.entries()) {
          if (i > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
          res.write(event)
        }
        res.end()
        return
      }
      case '/trailers': res.setHeader('trailer', 'x-checksum'); res.write('with a trailer'); res.addTrailers({ 'x-checksum': 'abc' }); res.end(); return
      case '/count': hits++; res.end(`hit ${hits}`); return
      default: res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ method: req.method, url: req.url, body }))
    }
  })
  t.after(() => server.close())
  return Object.assign(server, { hits: () => hits })
}
