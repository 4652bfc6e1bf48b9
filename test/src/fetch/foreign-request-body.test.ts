/**
 * conduit's fetch given a Request built by another implementation (the runtime's global class,
 * or undici's), as ky and other SDKs build them: a body of known length goes out with its
 * `content-length`, as that implementation's own fetch sends it, not chunked.
 */

import { describe, it, after, before } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { fetch } from '../../../src/index.js'
import { Agent } from '../../../src/dispatcher/agent.js'
import { FOREIGN_BODY_READ_AHEAD } from '../../../src/fetch/foreign-body.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { undici } from '../../helpers/undici-reference.js'

const TEXT = 'a body an S3 presigned PUT needs the length of'

interface Seen { contentLength: string | null, transferEncoding: string | null, length: number, contentType: string | null }

type FormDataClass = new () => { append: (name: string, value: string) => void }

/** Body kinds a Request of another implementation can be built from, given that implementation's FormData. */
const BODIES: Array<[string, (Form: FormDataClass) => unknown]> = [
  ['a string', () => TEXT],
  ['a Uint8Array', () => new TextEncoder().encode(TEXT)],
  ['a Blob', () => new Blob([TEXT], { type: 'text/plain' })],
  ['a FormData', (Form) => { const form = new Form(); form.append('field', TEXT); return form }],
  ['a URLSearchParams', () => new URLSearchParams({ field: TEXT })]
]

type RequestClass = new (url: string, init: Record<string, unknown>) => unknown

const IMPLEMENTATIONS: Array<[string, RequestClass, FormDataClass, (request: unknown) => Promise<unknown>]> = [
  ["the runtime's Request", globalThis.Request as unknown as RequestClass, globalThis.FormData as unknown as FormDataClass, (request) => globalThis.fetch(request as globalThis.Request)],
  ["undici's Request", undici.Request as unknown as RequestClass, undici.FormData as unknown as FormDataClass, (request) => undici.fetch(request as never)]
]

describe("conduit's fetch with another implementation's Request", () => {
  let server: TestServer<http.Server>
  let agent: Agent
  before(async () => {
    server = await startHttpServer((req, res) => {
      let length = 0
      req.on('data', (chunk: Buffer) => { length += chunk.length })
      req.on('end', () => {
        const seen: Seen = {
          contentLength: req.headers['content-length'] ?? null,
          transferEncoding: req.headers['transfer-encoding'] ?? null,
          length,
          contentType: req.headers['content-type'] ?? null
        }
        res.end(JSON.stringify(seen))
      })
    })
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  for (const [implementation, RequestOf, FormOf, ownFetch] of IMPLEMENTATIONS) {
    for (const [name, make] of BODIES) {
      it(`${implementation} with ${name}: the body goes out with its content-length, as that implementation's fetch sends it`, async () => {
        const build = (): unknown => new RequestOf(`${server.origin}/upload`, { method: 'PUT', body: make(FormOf) })
        const mine = await (await fetch(build() as globalThis.Request, { dispatcher: agent })).json() as Seen
        const theirs = JSON.parse(await (await ownFetch(build()) as { text: () => Promise<string> }).text()) as Seen
        assert.equal(mine.transferEncoding, null)
        assert.equal(mine.contentLength, String(mine.length))
        assert.ok(mine.length > 0)
        assert.deepEqual({ ...mine, contentType: mine.contentType?.replace(/boundary=.*/, '') }, { ...theirs, contentType: theirs.contentType?.replace(/boundary=.*/, '') })
      })
    }
  }

  it("the runtime's Request with a Blob larger than the read-ahead: the body streams with its content-length, as the runtime's fetch and undici's send it", async () => {
    const size = FOREIGN_BODY_READ_AHEAD + 1024 * 1024
    const blob = (): Blob => new Blob([new Uint8Array(size).fill(120)], { type: 'application/octet-stream' })
    const mine = await (await fetch(new globalThis.Request(`${server.origin}/upload`, { method: 'PUT', body: blob() }), { dispatcher: agent })).json() as Seen
    const runtime = await (await globalThis.fetch(new globalThis.Request(`${server.origin}/upload`, { method: 'PUT', body: blob() }))).json() as Seen
    const reference = await (await undici.fetch(new undici.Request(`${server.origin}/upload`, { method: 'PUT', body: blob() as never }))).json() as Seen
    assert.deepEqual(mine, { contentLength: String(size), transferEncoding: null, length: size, contentType: 'application/octet-stream' })
    assert.deepEqual(runtime, mine)
    assert.deepEqual(reference, mine)
  })

  it("the runtime's Request aborted while its large Blob body streams: the fetch rejects with the abort, and the server gets no complete body", async () => {
    const controller = new AbortController()
    let received = 0
    const slow = await startHttpServer((req, res) => {
      req.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > 1024 * 1024) controller.abort(new Error('stop uploading'))
      })
      req.on('error', () => {})
      req.on('end', () => res.end('complete'))
    })
    try {
      const body = new Blob([new Uint8Array(FOREIGN_BODY_READ_AHEAD * 4)])
      const request = new globalThis.Request(`${slow.origin}/upload`, { method: 'PUT', body, signal: controller.signal })
      await assert.rejects(fetch(request, { dispatcher: agent }), (err: Error) => err.message === 'stop uploading')
      assert.ok(received < FOREIGN_BODY_READ_AHEAD * 4)
    } finally {
      await slow.close()
    }
  })

  it("a short ReadableStream body of the runtime's Request goes out with its length too", async () => {
    const body = new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode('one '))
        controller.enqueue(new TextEncoder().encode('two'))
        controller.close()
      }
    })
    const request = new globalThis.Request(`${server.origin}/upload`, { method: 'PUT', body, duplex: 'half' } as RequestInit)
    const seen = await (await fetch(request, { dispatcher: agent })).json() as Seen
    assert.deepEqual(seen, { contentLength: '7', transferEncoding: null, length: 7, contentType: null })
  })

  it('a stream longer than the read-ahead goes out chunked, whole', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(97)
    const count = Math.ceil(FOREIGN_BODY_READ_AHEAD / chunk.length) + 2
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull (controller) {
        if (sent === count) controller.close()
        else { sent++; controller.enqueue(chunk.slice()) }
      }
    })
    const request = new globalThis.Request(`${server.origin}/upload`, { method: 'PUT', body, duplex: 'half' } as RequestInit)
    const seen = await (await fetch(request, { dispatcher: agent })).json() as Seen
    assert.deepEqual(seen, { contentLength: null, transferEncoding: 'chunked', length: count * chunk.length, contentType: null })
  })

  it("a stream that fails while read ahead rejects the fetch with the stream's error as the cause", async () => {
    const failure = new Error('source broke')
    const body = new ReadableStream<Uint8Array>({
      start (controller) {
        controller.enqueue(new TextEncoder().encode('partial'))
        controller.error(failure)
      }
    })
    const request = new globalThis.Request(`${server.origin}/upload`, { method: 'PUT', body, duplex: 'half' } as RequestInit)
    const before = server.requests.length
    await assert.rejects(fetch(request, { dispatcher: agent }), (err: Error) => err instanceof TypeError && err.cause === failure)
    assert.equal(server.requests.length, before)
  })
})
