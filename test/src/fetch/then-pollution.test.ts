/**
 * Byte bodies (ArrayBuffer, typed arrays, DataView) under a polluted `Object.prototype.then`: the
 * Fetch Standard reads a byte sequence without resolving any promise with the bytes or a read
 * result, so a `then` that anyone put on Object.prototype must not change what is read or sent.
 * The pollution is removed in a `finally` of every case.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as conduit from '../../../src/index.js'
import { undici } from '../../helpers/undici-reference.js'
import { startHttpServer } from '../../helpers/servers.js'

type Lib = Record<string, any>

const HELLO = 'hello'
const bodies: Record<string, () => ArrayBuffer | ArrayBufferView> = {
  ArrayBuffer: () => new TextEncoder().encode(HELLO).buffer,
  Uint8Array: () => new TextEncoder().encode(HELLO),
  'Uint8Array at an offset': () => new TextEncoder().encode(`xx${HELLO}yy`).subarray(2, 7),
  DataView: () => new DataView(new TextEncoder().encode(`x${HELLO}`).buffer, 1),
  Float32Array: () => new Float32Array(new Uint8Array([104, 101, 108, 108]).buffer)
}

/** The text a body kind holds (Float32Array: four bytes). */
function expectedText (kind: string): string {
  return kind === 'Float32Array' ? 'hell' : HELLO
}

/** True for bytes holding the test body (`hell`), as a view, an ArrayBuffer, in an array or a read result. */
function carriesBody (value: unknown): boolean {
  if (value instanceof ArrayBuffer) return Buffer.from(value).includes('hell')
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).includes('hell')
  if (Array.isArray(value)) return value.some(carriesBody)
  return typeof value === 'object' && value !== null && 'value' in value && carriesBody((value as { value: unknown }).value)
}

/**
 * Sets `Object.prototype.then` so that a promise resolved with the test body's bytes (or an array
 * or read result holding them) gets other bytes (`bye`) instead; every other object passes
 * through unchanged (the test runner's own promises among them). Returns how many were replaced.
 */
function pollute (): { replaced: number } {
  const seen = { replaced: 0 }
  const then = function (this: unknown, onFulfilled: (value: unknown) => void): void {
    // Removed while resolving, so the value given on is taken as it is rather than asked again.
    delete (Object.prototype as { then?: unknown }).then
    try {
      const target = this as Record<string, unknown>
      if (carriesBody(target)) {
        seen.replaced++
        const bye = new TextEncoder().encode('bye')
        onFulfilled(Array.isArray(target) ? [Buffer.from(bye)] : 'value' in target ? { done: false, value: bye } : bye)
      } else {
        onFulfilled(target)
      }
    } finally {
      Object.defineProperty(Object.prototype, 'then', { value: then, configurable: true, writable: true })
    }
  }
  Object.defineProperty(Object.prototype, 'then', { value: then, configurable: true, writable: true })
  return seen
}

function unpollute (): void {
  delete (Object.prototype as { then?: unknown }).then
}

async function underPollution<T> (run: () => Promise<T>): Promise<T> {
  pollute()
  try {
    return await run()
  } finally {
    unpollute()
  }
}

/** Reads a body stream through pipeTo, as the standard's WritableStream sink sees it. */
async function piped (stream: ReadableStream<Uint8Array>): Promise<string> {
  const bytes: number[] = []
  await stream.pipeTo(new WritableStream({ write (chunk: Uint8Array) { bytes.push(...chunk) } }))
  return Buffer.from(bytes).toString()
}

const readers: Record<string, (lib: Lib, body: ArrayBuffer | ArrayBufferView) => Promise<unknown>> = {
  'Response text()': (lib, body) => new lib.Response(body).text(),
  'Request text()': (lib, body) => new lib.Request('http://127.0.0.1/', { method: 'POST', body }).text(),
  'Response json()': (lib) => new lib.Response(new TextEncoder().encode('"hi"')).json(),
  'Response body.pipeTo()': (lib, body) => piped(new lib.Response(body).body),
  'Request body.pipeTo()': (lib, body) => piped(new lib.Request('http://127.0.0.1/', { method: 'POST', body }).body),
  'Response arrayBuffer() as text': async (lib, body) => {
    const read: ArrayBuffer = await new lib.Response(body).arrayBuffer()
    // The standard resolves arrayBuffer()'s promise with the ArrayBuffer, which asks `then`; only
    // what was read before that is compared.
    return read instanceof ArrayBuffer ? Buffer.from(read).toString() : 'replaced at the final resolution'
  }
}

describe('byte bodies under a polluted Object.prototype.then', () => {
  for (const [kind, make] of Object.entries(bodies)) {
    for (const [name, read] of Object.entries(readers)) {
      it(`${name} of a ${kind} body reads as it does unpolluted, as undici does unpolluted`, async () => {
        const clean = await read(conduit as Lib, make())
        const reference = await read(undici as Lib, make())
        const polluted = await underPollution(() => read(conduit as Lib, make()))
        assert.equal(clean, name.includes('json') ? 'hi' : expectedText(kind))
        assert.deepEqual(reference, clean)
        if (polluted !== 'replaced at the final resolution') assert.deepEqual(polluted, clean)
        assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'then'), false)
      })
    }
  }

  it('sends the exact bytes with fetch() and request() while the pollution is in place', async (t) => {
    const received: string[] = []
    const server = await startHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => { received.push(`${Buffer.concat(chunks).toString()} ${req.headers['content-length'] ?? 'chunked'}`); res.end('ok') })
    })
    const agent = new conduit.Agent()
    t.after(async () => { unpollute(); await agent.close(); await server.close() })
    for (const [kind, make] of Object.entries(bodies)) {
      const text = expectedText(kind)
      const fetched = await underPollution(async () => {
        const res = await conduit.fetch(`${server.origin}/`, { method: 'POST', body: make(), dispatcher: agent })
        return res instanceof conduit.Response ? await res.text() : 'replaced'
      })
      const requested = await underPollution(async () => {
        const res: unknown = await conduit.request(`${server.origin}/`, { method: 'POST', body: make() as never, dispatcher: agent })
        return res !== null && typeof res === 'object' && 'body' in res ? await (res as { body: { text: () => Promise<string> } }).body.text() : 'replaced'
      })
      assert.deepEqual(received.splice(0), [`${text} ${text.length}`, `${text} ${text.length}`], kind)
      // The response's own resolution may be the one replaced (the standard resolves with it);
      // otherwise the answer is read whole.
      for (const answer of [fetched, requested]) assert.ok(answer === 'ok' || answer === 'replaced', `${kind}: ${String(answer)}`)
    }
  })
})
