/**
 * Body streams as the Fetch Standard makes them: byte streams (a BYOB reader works) whose chunks
 * are plain `Uint8Array`s of their own, for every body a Request or Response can hold and for a
 * fetched response, compared with undici's classes.
 */

import { describe, it, after, before } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { fetch, Request, Response } from '../../../src/index.js'
import { Agent } from '../../../src/dispatcher/agent.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { undici } from '../../helpers/undici-reference.js'

const TEXT = 'byte stream body '.repeat(64)

/** Bodies of every kind a Request or Response takes, made fresh for each use. */
const BODIES: Array<[string, () => unknown]> = [
  ['a string', () => TEXT],
  ['a Uint8Array', () => new TextEncoder().encode(TEXT)],
  ['an ArrayBuffer', () => new TextEncoder().encode(TEXT).buffer],
  ['a Blob', () => new Blob([TEXT])],
  ['a FormData', () => { const form = new FormData(); form.append('a', TEXT); return form }],
  ['a URLSearchParams', () => new URLSearchParams({ a: TEXT })]
]

interface StreamHolder { body: ReadableStream<Uint8Array> | null }

/** Reads a body with a BYOB reader into small views; returns the bytes and what the chunks were. */
async function readByob (holder: StreamHolder): Promise<{ bytes: Buffer, plain: boolean }> {
  const reader = holder.body!.getReader({ mode: 'byob' })
  const parts: Buffer[] = []
  let plain = true
  for (;;) {
    const { value, done } = await reader.read(new Uint8Array(100))
    if (done) break
    plain &&= Object.getPrototypeOf(value) === Uint8Array.prototype
    parts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength))
  }
  return { bytes: Buffer.concat(parts), plain }
}

/** Reads a body with a default reader; checks every chunk is a plain Uint8Array whose slice() copies. */
async function readDefault (holder: StreamHolder): Promise<{ bytes: Buffer, plain: boolean, sliceCopies: boolean }> {
  const reader = holder.body!.getReader()
  const parts: Buffer[] = []
  let plain = true
  let sliceCopies = true
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    plain &&= Object.getPrototypeOf(value) === Uint8Array.prototype
    parts.push(Buffer.from(value))
    const copy = value.slice()
    copy[0] = (value[0]! + 1) & 0xff
    sliceCopies &&= copy[0] !== value[0]
  }
  return { bytes: Buffer.concat(parts), plain, sliceCopies }
}

async function bytesOf (holder: { arrayBuffer: () => Promise<ArrayBuffer> }): Promise<Buffer> {
  return Buffer.from(await holder.arrayBuffer())
}

describe('body streams are byte streams of plain Uint8Arrays', () => {
  let server: TestServer<http.Server>
  let agent: Agent
  before(async () => {
    server = await startHttpServer((req, res) => {
      // Several writes, so the body arrives in several chunks.
      for (let i = 0; i < 8; i++) res.write(TEXT)
      res.end()
    })
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  for (const [name, make] of BODIES) {
    for (const [holderName, build] of [
      ['Response', (body: unknown) => new Response(body as never)],
      ['Request', (body: unknown) => new Request('http://127.0.0.1/', { method: 'POST', body: body as never })]
    ] as const) {
      it(`a ${holderName} with ${name}: a BYOB reader reads the whole body, and a default reader gets plain Uint8Arrays, as in undici`, async () => {
        const expected = await bytesOf(build(make()) as never)
        const byob = await readByob(build(make()) as StreamHolder)
        assert.equal(byob.bytes.length, expected.length)
        assert.equal(byob.plain, true)
        const mine = await readDefault(build(make()) as StreamHolder)
        // Each form gets a boundary of its own, so only its length repeats.
        if (name === 'a FormData') assert.equal(mine.bytes.length, expected.length)
        else assert.deepEqual(mine.bytes, expected)
        assert.equal(mine.plain, true)
        assert.equal(mine.sliceCopies, true)
        // undici takes only its own FormData class as a form.
        const referenceBody = name === 'a FormData' ? (() => { const form = new undici.FormData(); form.append('a', TEXT); return form })() : make()
        const reference = holderName === 'Response'
          ? new undici.Response(referenceBody as never)
          : new undici.Request('http://127.0.0.1/', { method: 'POST', body: referenceBody as never })
        const theirs = await readDefault(reference as unknown as StreamHolder)
        // A form's boundary is each implementation's own; other bodies are the same bytes.
        if (name !== 'a FormData') assert.deepEqual(theirs.bytes, mine.bytes)
        assert.deepEqual({ plain: theirs.plain, sliceCopies: theirs.sliceCopies }, { plain: mine.plain, sliceCopies: mine.sliceCopies })
      })
    }
  }

  it('a fetched body: every chunk is a plain Uint8Array whose slice() copies, as from undici', async () => {
    const mine = await readDefault(await fetch(server.origin, { dispatcher: agent }))
    const reference = new undici.Agent()
    after(() => reference.close())
    const theirs = await readDefault(await undici.fetch(server.origin, { dispatcher: reference }) as unknown as StreamHolder)
    assert.equal(mine.bytes.toString(), TEXT.repeat(8))
    assert.deepEqual(mine, theirs)
    assert.equal(mine.plain, true)
    assert.equal(mine.sliceCopies, true)
  })

  it('a fetched body reads with a BYOB reader, into views smaller than the chunks', async () => {
    const read = await readByob(await fetch(server.origin, { dispatcher: agent }))
    assert.equal(read.bytes.toString(), TEXT.repeat(8))
    assert.equal(read.plain, true)
  })

  it('both branches of a cloned fetched body are byte streams with the whole body', async () => {
    const response = await fetch(server.origin, { dispatcher: agent })
    const copy = response.clone()
    const [a, b] = await Promise.all([readByob(response), readByob(copy)])
    assert.equal(a.bytes.toString(), TEXT.repeat(8))
    assert.deepEqual(b.bytes, a.bytes)
  })

  it('an empty body ends a BYOB read at once', async () => {
    const read = await readByob(new Response(''))
    assert.equal(read.bytes.length, 0)
  })
})
