import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import zlib from 'node:zlib'
import { fetch } from '../../../src/fetch/fetch.js'
import { ENCODED_TEXT, useFetchServer } from './fetch-server.js'

const sri = (algorithm: string, text: string): string => `${algorithm}-${createHash(algorithm).update(text).digest('base64')}`

describe('fetch content decoding and integrity', () => {
  const ctx = useFetchServer()

  for (const coding of ['gzip', 'deflate', 'deflate-raw', 'br']) {
    it(`decodes a ${coding} body and keeps the Content-Encoding header`, async () => {
      const response = await fetch(`${ctx.server.origin}/encoded/${coding}`, { dispatcher: ctx.agent })
      assert.equal(response.headers.get('content-encoding'), coding === 'deflate-raw' ? 'deflate' : coding)
      assert.equal(await response.text(), ENCODED_TEXT)
    })
  }

  it('decodes a body streamed through response.body', async () => {
    const response = await fetch(`${ctx.server.origin}/encoded/gzip`, { dispatcher: ctx.agent })
    const chunks: Uint8Array[] = []
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk)
    assert.equal(Buffer.concat(chunks).toString(), ENCODED_TEXT)
  })

  it('undoes several codings in reverse order', async () => {
    const response = await fetch(`${ctx.server.origin}/encoded-twice`, { dispatcher: ctx.agent })
    assert.equal(await response.text(), ENCODED_TEXT)
  })

  it('passes a body with an unknown coding through undecoded', async () => {
    const response = await fetch(`${ctx.server.origin}/unknown-coding`, { dispatcher: ctx.agent })
    assert.equal(await response.text(), 'raw bytes')
  })

  it('advertises zstd exactly when the runtime can decode it', async () => {
    const echo = await (await fetch(`${ctx.server.origin}/echo`, { dispatcher: ctx.agent })).json() as { headers: Record<string, string> }
    const runtimeHasZstd = typeof (zlib as unknown as Record<string, unknown>).createZstdDecompress === 'function'
    assert.equal(echo.headers['accept-encoding']!.split(', ').includes('zstd'), runtimeHasZstd)
  })

  it('errors the body when the encoded bytes are corrupt', async () => {
    const response = await fetch(`${ctx.server.origin}/bad-gzip`, { dispatcher: ctx.agent })
    await assert.rejects(response.text(), (err: Error & { code?: string }) => err.code === 'Z_DATA_ERROR')
  })

  it('stops the download and errors the stream when a long encoded body turns corrupt', async () => {
    const response = await fetch(`${ctx.server.origin}/bad-gzip-big`, { dispatcher: ctx.agent })
    const reader = response.body!.getReader()
    await assert.rejects(async () => { for (;;) if ((await reader.read()).done) break }, (err: Error & { code?: string }) => err.code === 'Z_DATA_ERROR')
    const next = await fetch(`${ctx.server.origin}/text`, { dispatcher: ctx.agent })
    assert.equal(await next.text(), 'hello')
  })

  it('resolves when the body matches the integrity metadata', async () => {
    for (const algorithm of ['sha256', 'sha384', 'sha512']) {
      const response = await fetch(`${ctx.server.origin}/text`, { integrity: sri(algorithm, 'hello'), dispatcher: ctx.agent })
      assert.equal(await response.text(), 'hello')
    }
  })

  it('checks integrity on the decoded body', async () => {
    const response = await fetch(`${ctx.server.origin}/encoded/br`, { integrity: sri('sha256', ENCODED_TEXT), dispatcher: ctx.agent })
    assert.equal(await response.text(), ENCODED_TEXT)
  })

  it('rejects with a network error when the body does not match', async () => {
    await assert.rejects(fetch(`${ctx.server.origin}/text`, { integrity: sri('sha256', 'something else'), dispatcher: ctx.agent }), (err: Error) =>
      err instanceof TypeError && err.message === 'fetch failed' && /integrity/.test((err.cause as Error).message))
  })
})
