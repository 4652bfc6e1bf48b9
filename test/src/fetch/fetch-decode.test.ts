import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import zlib from 'node:zlib'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch } from '../../../src/fetch/fetch.js'
import { ENCODED_TEXT, startFetchServer } from './fetch-server.js'
import type { TestServer } from '../../helpers/servers.js'

const sri = (algorithm: string, text: string): string => `${algorithm}-${createHash(algorithm).update(text).digest('base64')}`

describe('fetch content decoding and integrity', () => {
  let server: TestServer
  let agent: Agent
  before(async () => {
    server = await startFetchServer()
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
  })

  for (const coding of ['gzip', 'deflate', 'deflate-raw', 'br']) {
    it(`decodes a ${coding} body and keeps the Content-Encoding header`, async () => {
      const response = await fetch(`${server.origin}/encoded/${coding}`, { dispatcher: agent })
      assert.equal(response.headers.get('content-encoding'), coding === 'deflate-raw' ? 'deflate' : coding)
      assert.equal(await response.text(), ENCODED_TEXT)
    })
  }

  it('decodes a body streamed through response.body', async () => {
    const response = await fetch(`${server.origin}/encoded/gzip`, { dispatcher: agent })
    const chunks: Uint8Array[] = []
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk)
    assert.equal(Buffer.concat(chunks).toString(), ENCODED_TEXT)
  })

  it('undoes several codings in reverse order', async () => {
    const response = await fetch(`${server.origin}/encoded-twice`, { dispatcher: agent })
    assert.equal(await response.text(), ENCODED_TEXT)
  })

  it('passes a body with an unknown coding through undecoded', async () => {
    const response = await fetch(`${server.origin}/unknown-coding`, { dispatcher: agent })
    assert.equal(await response.text(), 'raw bytes')
  })

  it('advertises zstd exactly when the runtime can decode it', async () => {
    const echo = await (await fetch(`${server.origin}/echo`, { dispatcher: agent })).json() as { headers: Record<string, string> }
    const runtimeHasZstd = typeof (zlib as unknown as Record<string, unknown>).createZstdDecompress === 'function'
    assert.equal(echo.headers['accept-encoding']!.split(', ').includes('zstd'), runtimeHasZstd)
  })

  it('errors the body when the encoded bytes are corrupt', async () => {
    const response = await fetch(`${server.origin}/bad-gzip`, { dispatcher: agent })
    await assert.rejects(response.text(), (err: Error & { code?: string }) => err.code === 'Z_DATA_ERROR')
  })

  it('stops the download and errors the stream when a long encoded body turns corrupt', async () => {
    const response = await fetch(`${server.origin}/bad-gzip-big`, { dispatcher: agent })
    const reader = response.body!.getReader()
    await assert.rejects(async () => { for (;;) if ((await reader.read()).done) break }, (err: Error & { code?: string }) => err.code === 'Z_DATA_ERROR')
    const next = await fetch(`${server.origin}/text`, { dispatcher: agent })
    assert.equal(await next.text(), 'hello')
  })

  it('resolves when the body matches the integrity metadata', async () => {
    for (const algorithm of ['sha256', 'sha384', 'sha512']) {
      const response = await fetch(`${server.origin}/text`, { integrity: sri(algorithm, 'hello'), dispatcher: agent })
      assert.equal(await response.text(), 'hello')
    }
  })

  it('checks integrity on the decoded body', async () => {
    const response = await fetch(`${server.origin}/encoded/br`, { integrity: sri('sha256', ENCODED_TEXT), dispatcher: agent })
    assert.equal(await response.text(), ENCODED_TEXT)
  })

  it('rejects with a network error when the body does not match', async () => {
    await assert.rejects(fetch(`${server.origin}/text`, { integrity: sri('sha256', 'something else'), dispatcher: agent }), (err: Error) =>
      err instanceof TypeError && err.message === 'fetch failed' && /integrity/.test((err.cause as Error).message))
  })
})
