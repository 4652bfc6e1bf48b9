import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { HpackDecoder } from '../../../../src/h2/hpack/decoder.js'
import { HpackEncoder } from '../../../../src/h2/hpack/encoder.js'
import { fieldName, repeatingList } from './field-arbitraries.js'
import { RawH2Connection, SETTINGS_HEADER_TABLE_SIZE, SETTINGS_MAX_HEADER_LIST_SIZE } from './raw-h2.js'

// Interop with node:http2's HPACK (nghttp2) over real TCP connections on 127.0.0.1: conduit's
// encoder against nghttp2's decoder, and nghttp2's encoder against conduit's decoder, several
// streams a connection so the dynamic tables carry state from block to block.

/** Names nghttp2 refuses in a request or response (connection-specific, or checked for syntax). */
const REFUSED_NAMES = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'content-length', 'host', 'cookie'])

const interopName = fieldName.filter((name) => !REFUSED_NAMES.has(name))

/** A value nghttp2 takes: visible ASCII, obs-text, inner spaces and tabs (RFC 9113 section 8.2.1). */
const interopValue = fc.oneof(
  fc.constantFrom('', 'gzip, deflate', 'text/html; charset=utf-8', '*/*'),
  fc.array(fc.oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0x20, 0x09)), { maxLength: 50 })
    .map((codes) => String.fromCharCode(...codes).replace(/^[ \t]+|[ \t]+$/g, ''))
)

const interopFields = repeatingList(interopName, interopValue, 16)

const TABLE_SIZES = [0, 100, 512, 4096]

interface Step {
  fields: string[]
  tableSize: number | null
  fragmentSize: number
}

const steps = fc.array(fc.record({
  fields: interopFields,
  tableSize: fc.option(fc.constantFrom(...TABLE_SIZES), { freq: 3 }),
  fragmentSize: fc.constantFrom(16384, 64, 7)
}), { minLength: 1, maxLength: 10 })

async function listen (server: http2.Http2Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

async function closeServer (server: http2.Http2Server, sessions: Set<http2.ServerHttp2Session>): Promise<void> {
  for (const session of sessions) session.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** Groups a flat list into node's header object shape: a name seen twice holds an array. */
function asObject (fields: readonly string[]): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = {}
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!
    const value = fields[i + 1]!
    const held = object[name]
    if (held === undefined) object[name] = value
    else if (Array.isArray(held)) held.push(value)
    else object[name] = [held, value]
  }
  return object
}

describe('HPACK interop with node:http2', () => {
  it('node:http2 decodes exactly the lists conduit encodes, with table size changes and CONTINUATION frames', async () => {
    const received = new Map<number, (raw: string[]) => void>()
    const sessions = new Set<http2.ServerHttp2Session>()
    const server = http2.createServer()
    server.on('session', (session) => sessions.add(session))
    server.on('stream', (stream: http2.ServerHttp2Stream, _headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
      received.get(stream.id!)?.(rawHeaders)
      stream.respond({ ':status': 204 }, { endStream: true })
    })
    const port = await listen(server)
    try {
      await fc.assert(fc.asyncProperty(steps, async (run: Step[]) => {
        const connection = await RawH2Connection.open(port)
        const encoder = new HpackEncoder()
        connection.onServerSettings = (settings) => {
          for (const [id, value] of settings) if (id === SETTINGS_HEADER_TABLE_SIZE) encoder.setPeerMaxTableSize(value)
        }
        try {
          await connection.nextServerSettings()
          const session = [...sessions].at(-1)!
          let streamId = 1
          for (const step of run) {
            if (step.tableSize !== null) {
              const seen = connection.nextServerSettings()
              session.settings({ headerTableSize: step.tableSize })
              await seen
            }
            const fields = [':method', 'GET', ':scheme', 'http', ':path', `/s/${streamId}`, ':authority', 'localhost', ...step.fields]
            const decoded = new Promise<string[]>((resolve) => received.set(streamId, resolve))
            const block = encoder.encode(fields)
            // nghttp2 takes at most 8 CONTINUATION frames a block (its CVE-2024-27316 guard).
            connection.sendHeaders(streamId, block, true, Math.max(step.fragmentSize, Math.ceil(block.length / 8)))
            assert.deepEqual(await Promise.race([decoded, connection.failed()]), fields)
            assert.equal((await connection.nextHeaderBlock()).streamId, streamId)
            streamId += 2
          }
        } finally {
          connection.close()
        }
      }), { seed: 7541_9113, numRuns: 25, verbose: 1 })
    } finally {
      await closeServer(server, sessions)
    }
  })

  it('conduit decodes exactly the lists node:http2 encodes, across streams, table size changes and CONTINUATION frames', async () => {
    const responses = new Map<number, Record<string, string | string[]>>()
    const sent = new Map<number, http2.OutgoingHttpHeaders>()
    const sessions = new Set<http2.ServerHttp2Session>()
    const server = http2.createServer({ maxSendHeaderBlockLength: 1 << 20 })
    server.on('session', (session) => sessions.add(session))
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200, ...responses.get(stream.id!) }, { endStream: true })
      sent.set(stream.id!, stream.sentHeaders)
    })
    const port = await listen(server)
    const responseSteps = fc.array(fc.record({
      fields: interopFields,
      cookies: fc.array(interopValue.filter((value) => value.length > 0), { maxLength: 3 }),
      big: fc.boolean(),
      tableSize: fc.option(fc.constantFrom(...TABLE_SIZES), { freq: 3 })
    }), { minLength: 1, maxLength: 10 })
    try {
      await fc.assert(fc.asyncProperty(responseSteps, async (run) => {
        const connection = await RawH2Connection.open(port, [[SETTINGS_MAX_HEADER_LIST_SIZE, 1 << 20]])
        const encoder = new HpackEncoder()
        const decoder = new HpackDecoder({ maxHeaderListSize: 1 << 20 })
        try {
          let streamId = 1
          for (const step of run) {
            if (step.tableSize !== null) {
              await connection.sendSettings([[SETTINGS_HEADER_TABLE_SIZE, step.tableSize]])
              decoder.setMaxTableSize(step.tableSize)
            }
            // node:http2 takes one value per name (set-cookie apart, an array): the last one wins.
            const headers: Record<string, string | string[]> = {}
            for (let i = 0; i < step.fields.length; i += 2) headers[step.fields[i]!] = step.fields[i + 1]!
            if (step.cookies.length > 0) headers['set-cookie'] = step.cookies
            // A value past the 16 KiB frame that Huffman does not shrink (`&` has an 8-bit code):
            // node:http2 sends the block as HEADERS + CONTINUATION.
            if (step.big) headers['x-big'] = '&'.repeat(20_000)
            responses.set(streamId, headers)
            connection.sendHeaders(streamId, encoder.encode([':method', 'GET', ':scheme', 'http', ':path', '/', ':authority', 'localhost']), true)
            const block = await connection.nextHeaderBlock()
            assert.equal(block.streamId, streamId)
            if (step.big) assert.ok(block.fragments.length > 1)
            const expected = Object.fromEntries(Object.entries(sent.get(streamId)!).map(([name, value]) => [name, Array.isArray(value) && value.length > 1 ? value.map(String) : String(value)]))
            assert.deepEqual(asObject(decoder.decode(block.fragments)), expected)
            streamId += 2
          }
        } finally {
          connection.close()
        }
      }), { seed: 4444, numRuns: 25, verbose: 1 })
    } finally {
      await closeServer(server, sessions)
    }
  })
})
