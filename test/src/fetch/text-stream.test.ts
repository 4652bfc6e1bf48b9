import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Response } from '../../../src/fetch/response.js'
import { Request } from '../../../src/fetch/request.js'
import { UNDICI_MAJOR, undici } from '../../helpers/undici-reference.js'

async function readText (stream: ReadableStream<string>): Promise<string[]> {
  const chunks: string[] = []
  for await (const chunk of stream as unknown as AsyncIterable<string>) chunks.push(chunk)
  return chunks
}

/** A body whose bytes arrive in the pieces given, splitting multi-byte characters. */
function split (bytes: Buffer, at: number[]): ReadableStream<Uint8Array> {
  const pieces = [0, ...at, bytes.length].slice(1).map((end, i, ends) => bytes.subarray(i === 0 ? 0 : ends[i - 1], end))
  return new ReadableStream({ start (controller) { for (const piece of pieces) controller.enqueue(new Uint8Array(piece)); controller.close() } })
}

describe('Body.textStream()', () => {
  it('decodes the body as UTF-8 while it arrives, characters split across chunks included', async () => {
    const bytes = Buffer.from('héllo wörld ✓')
    const response = new Response(split(bytes, [2, 9, 15]))
    const text = (await readText(response.textStream())).join('')
    assert.equal(text, 'héllo wörld ✓')
    assert.equal(response.bodyUsed, true)
  })

  it('gives an empty stream for a response without a body, and works on a Request', async () => {
    assert.deepEqual(await readText(new Response(null).textStream()), [])
    const request = new Request('http://127.0.0.1/', { method: 'POST', body: 'sent' })
    assert.equal((await readText(request.textStream())).join(''), 'sent')
  })

  it('throws a TypeError once the body was used', async () => {
    const response = new Response('once')
    await response.text()
    assert.throws(() => response.textStream(), { name: 'TypeError', message: /Response\.textStream: the body has already been consumed/ })
  })

  if (UNDICI_MAJOR === 8) {
    it('gives the same text as the undici 8 reference for the same bytes', async () => {
      const bytes = Buffer.from('a\u00e9\u4e2d\ud83d\ude00z')
      const cuts = [1, 2, 4, 6, 8]
      const ours = (await readText(new Response(split(bytes, cuts)).textStream())).join('')
      const theirs = (await readText((new undici.Response(split(bytes, cuts) as never) as unknown as { textStream: () => ReadableStream<string> }).textStream())).join('')
      assert.equal(ours, theirs)
    })
  }
})
