import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fetch } from '../../../src/fetch/fetch.js'
import { FormData } from '../../../src/fetch/form-data.js'
import { File } from '../../../src/fetch/file.js'
import { useFetchServer } from './fetch-server.js'

interface Echo { method: string, headers: Record<string, string | undefined>, body: string, length: number }

describe('fetch request and response bodies', () => {
  const ctx = useFetchServer()

  const echo = async (body: unknown, extra: object = {}): Promise<Echo> =>
    await (await fetch(`${ctx.server.origin}/echo`, { method: 'POST', body: body as never, dispatcher: ctx.agent, ...extra })).json() as Echo

  it('sends every body kind with the right bytes, length and type', async () => {
    const u8 = new Uint8Array([104, 105])
    const cases: Array<[unknown, string, string | undefined]> = [
      ['text', 'text', 'text/plain;charset=UTF-8'],
      [Buffer.from('buf'), 'buf', undefined],
      [u8, 'hi', undefined],
      [u8.buffer, 'hi', undefined],
      [new DataView(u8.buffer), 'hi', undefined],
      [new Blob(['blob'], { type: 'application/x-blob' }), 'blob', 'application/x-blob'],
      [new URLSearchParams({ a: '1', b: 'x y' }), 'a=1&b=x+y', 'application/x-www-form-urlencoded;charset=UTF-8']
    ]
    for (const [body, expected, type] of cases) {
      const result = await echo(body)
      assert.equal(result.body, expected)
      assert.equal(result.headers['content-length'], String(expected.length))
      assert.equal(result.headers['content-type'], type)
    }
  })

  it("streams a ReadableStream body with duplex: 'half' in chunked encoding", async () => {
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull (controller) {
        if (sent >= 50) {
          controller.close()
          return
        }
        sent++
        controller.enqueue(Buffer.alloc(1000, 120))
      }
    })
    const result = await echo(stream, { duplex: 'half' })
    assert.equal(result.length, 50000)
    assert.equal(result.headers['transfer-encoding'], 'chunked')
  })

  it('streams an async iterable body', async () => {
    async function * parts (): AsyncGenerator<string | Uint8Array> {
      yield 'one,'
      yield Buffer.from('two')
    }
    const result = await echo(parts(), { duplex: 'half' })
    assert.equal(result.body, 'one,two')
  })

  it('round-trips a multipart form of fields and files, large ones included', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 3, 7)
    const form = new FormData()
    form.append('name', 'ada')
    form.append('note', 'line1\nline2')
    form.append('small', new File(['tiny'], 'tiny.txt', { type: 'text/plain' }))
    form.append('large', new Blob([big], { type: 'application/octet-stream' }), 'large.bin')
    const response = await fetch(`${ctx.server.origin}/mirror`, { method: 'POST', body: form, dispatcher: ctx.agent })
    assert.match(response.headers.get('content-type')!, /^multipart\/form-data; boundary=/)
    const parsed = await response.formData()
    assert.equal(parsed.get('name'), 'ada')
    assert.equal(parsed.get('note'), 'line1\r\nline2')
    const small = parsed.get('small') as File
    assert.equal(small.name, 'tiny.txt')
    assert.equal(await small.text(), 'tiny')
    const large = parsed.get('large') as File
    assert.equal(large.size, big.length)
    assert.deepEqual(Buffer.from(await large.arrayBuffer()), big)
  })

  it("sends the runtime's own FormData as multipart", async () => {
    const form = new globalThis.FormData()
    form.append('k', 'v')
    form.append('f', new globalThis.File(['file body'], 'f.txt'))
    const parsed = await (await fetch(`${ctx.server.origin}/mirror`, { method: 'POST', body: form, dispatcher: ctx.agent })).formData()
    assert.equal(parsed.get('k'), 'v')
    assert.equal(await (parsed.get('f') as File).text(), 'file body')
  })

  it('clones a streamed response so both copies read the whole body', async () => {
    const size = 1024 * 1024
    const response = await fetch(`${ctx.server.origin}/big?size=${size}`, { dispatcher: ctx.agent })
    const clone = response.clone()
    const [a, b] = await Promise.all([response.arrayBuffer(), clone.arrayBuffer()])
    assert.equal(a.byteLength, size)
    assert.equal(b.byteLength, size)
  })

  it('refuses to clone or read a response body twice', async () => {
    const response = await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })
    await response.text()
    assert.throws(() => response.clone(), TypeError)
    await assert.rejects(response.json(), TypeError)
  })

  it('keeps a text() read intact when response.body is touched during it', async () => {
    const response = await fetch(`${ctx.server.origin}/big?size=300000`, { dispatcher: ctx.agent })
    const reading = response.text()
    assert.equal(response.body!.locked, true)
    assert.equal((await reading).length, 300000)
  })

  it('reads the body with every consumer', async () => {
    const bytes = await (await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })).bytes()
    assert.deepEqual(Buffer.from(bytes).toString(), 'hello')
    const blob = await (await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })).blob()
    assert.equal(blob.type, 'text/plain;charset=utf-8')
    assert.equal(await blob.text(), 'hello')
  })

  it('rejects with a network error whose cause is the error of a failing stream body', async () => {
    const failure = new Error('source broke')
    let sent = false
    const stream = new ReadableStream<Uint8Array>({
      pull (controller) {
        if (sent) {
          controller.error(failure)
          return
        }
        sent = true
        controller.enqueue(Buffer.from('start'))
      }
    })
    await assert.rejects(fetch(`${ctx.server.origin}/count`, { method: 'POST', body: stream, duplex: 'half', dispatcher: ctx.agent }), (err: Error) =>
      err instanceof TypeError && err.message === 'fetch failed' && err.cause === failure)
  })

  it('rejects with the signal reason when aborted during a streaming upload', async () => {
    const controller = new AbortController()
    const reason = new Error('upload cancelled')
    let pulls = 0
    const stream = new ReadableStream<Uint8Array>({
      pull (c) {
        pulls++
        if (pulls === 3) controller.abort(reason)
        c.enqueue(Buffer.alloc(1024, 1))
      }
    })
    await assert.rejects(fetch(`${ctx.server.origin}/count`, { method: 'POST', body: stream, duplex: 'half', signal: controller.signal, dispatcher: ctx.agent }), (err) => err === reason)
  })

  it('uploads a file opened from disk inside a FormData, with the exact content-length', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'conduit-fetch-'))
    t.after(() => rm(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'upload.bin')
    const size = 5 * 1024 * 1024 + 11
    await writeFile(file, Buffer.alloc(size, 3))
    const openAsBlob = (fs as unknown as { openAsBlob: (p: string, o?: { type?: string }) => Promise<Blob> }).openAsBlob
    const form = new FormData()
    form.append('meta', 'disk')
    form.append('file', await openAsBlob(file, { type: 'application/octet-stream' }), 'upload.bin')
    const result = await echo(form)
    assert.equal(result.headers['content-length'], String(result.length))
    assert.ok(result.length > size)
    assert.match(result.headers['content-type']!, /^multipart\/form-data; boundary=/)
  })
})

