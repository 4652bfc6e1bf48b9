/**
 * Differential tests: the same requests through conduit's fetch and the runtime's own global
 * fetch (a reference implementation of the Fetch Standard) against one local server must give
 * the same status, headers, body and error kind. Intended differences are listed in docs/fetch.md.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Agent } from '../../../src/dispatcher/agent.js'
import { fetch as conduitFetch } from '../../../src/fetch/fetch.js'
import { FormData } from '../../../src/fetch/form-data.js'
import { startFetchServer } from './fetch-server.js'
import type { TestServer } from '../../helpers/servers.js'

type AnyFetch = (input: string, init?: Record<string, unknown>) => Promise<globalThis.Response>
type Reader = 'text' | 'arrayBuffer' | 'blob' | 'formData' | 'none'

// Headers that legitimately differ: the clock, and connection management, which belongs to the
// transport (the runtime closes the connection after a HEAD; conduit keeps it alive).
const VOLATILE = new Set(['date', 'connection', 'keep-alive'])
// Multipart boundaries are random and differ in length between implementations.
const BOUNDARY = /boundary=[^;]+/

async function summarize (run: () => Promise<globalThis.Response>, read: Reader): Promise<unknown> {
  let response: globalThis.Response
  try {
    response = await run()
  } catch (err) {
    return errorKind(err)
  }
  const summary: Record<string, unknown> = {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    type: response.type,
    url: response.url,
    redirected: response.redirected,
    headers: [...response.headers as unknown as Iterable<[string, string]>]
      .filter(([name]) => !VOLATILE.has(name) && !(name === 'content-length' && BOUNDARY.test(response.headers.get('content-type') ?? '')))
      .map(([name, value]) => [name, value.replace(BOUNDARY, 'boundary=<random>')]),
    setCookie: response.headers.getSetCookie(),
    bodyNull: response.body === null
  }
  try {
    if (read === 'text') summary.body = await response.text()
    else if (read === 'arrayBuffer') summary.body = Buffer.from(await response.arrayBuffer()).toString('base64')
    else if (read === 'blob') {
      const blob = await response.blob()
      summary.body = [blob.type, blob.size]
    } else if (read === 'formData') {
      const form = await response.formData()
      summary.body = await Promise.all([...form as unknown as Iterable<[string, string | File]>].map(async ([name, value]) =>
        [name, typeof value === 'string' ? value : [value.name, value.type, await value.text()]]))
    }
    summary.bodyUsed = response.bodyUsed
  } catch (err) {
    summary.bodyError = errorKind(err)
  }
  return summary
}

function errorKind (err: unknown): unknown {
  const error = err as Error & { cause?: { code?: string } }
  // Error codes carry each library's prefix (LIB_ERR_SOCKET here, UND_ERR_SOCKET in the runtime).
  return { error: error.constructor.name, message: error.message, causeCode: error.cause?.code?.replace(/^UND_/, 'LIB_') }
}

describe('conduit fetch behaves like the runtime fetch', () => {
  let server: TestServer
  let other: TestServer
  let agent: Agent
  let refusedOrigin: string
  before(async () => {
    server = await startFetchServer()
    other = await startFetchServer()
    const refused = await startFetchServer()
    refusedOrigin = refused.origin
    await refused.close()
    agent = new Agent()
  })
  after(async () => {
    await agent.close()
    await server.close()
    await other.close()
  })

  const form = (): FormData => {
    const f = new FormData()
    f.append('field', 'value')
    f.append('file', new Blob(['file content'], { type: 'text/plain' }), 'a.txt')
    return f
  }
  const runtimeForm = (): globalThis.FormData => {
    const f = new globalThis.FormData()
    f.append('field', 'value')
    f.append('file', new Blob(['file content'], { type: 'text/plain' }), 'a.txt')
    return f
  }

  const cases: Array<{ name: string, path: string, init?: (own: boolean) => Record<string, unknown>, read?: Reader }> = [
    { name: 'a plain GET', path: '/text' },
    { name: 'a JSON body read as bytes', path: '/json', read: 'arrayBuffer' },
    { name: 'a 404', path: '/missing' },
    { name: 'a 503', path: '/status?code=503' },
    { name: 'a 204 without body', path: '/status?code=204' },
    { name: 'a HEAD request', path: '/text', init: () => ({ method: 'HEAD' }) },
    { name: 'a redirect chain', path: '/chain?left=3' },
    { name: 'a POST redirected with 303', path: '/redirect?status=303&to=/status?code=201', init: () => ({ method: 'POST', body: 'x' }) },
    { name: 'a 307 keeping the method', path: '/redirect?status=307&to=/count', init: () => ({ method: 'POST', body: 'twelve bytes' }) },
    { name: 'a manual redirect', path: '/redirect?status=302&to=/text', init: () => ({ redirect: 'manual' }) },
    { name: 'a redirect with redirect: error', path: '/redirect?to=/text', init: () => ({ redirect: 'error' }) },
    { name: 'too many redirects', path: '/chain?left=21' },
    { name: 'a gzip body', path: '/encoded/gzip' },
    { name: 'a deflate body', path: '/encoded/deflate' },
    { name: 'a raw deflate body', path: '/encoded/deflate-raw' },
    { name: 'a br body', path: '/encoded/br' },
    { name: 'two codings', path: '/encoded-twice' },
    { name: 'an unknown coding', path: '/unknown-coding' },
    { name: 'several Set-Cookie headers', path: '/cookies' },
    { name: 'blob() typing', path: '/text', read: 'blob' },
    { name: 'a body cut by the server', path: '/cut' },
    { name: 'a multipart round trip', path: '/mirror', init: (own) => ({ method: 'POST', body: own ? form() : runtimeForm() }), read: 'formData' },
    { name: 'a urlencoded round trip', path: '/mirror', init: () => ({ method: 'POST', body: new URLSearchParams('a=1&b=two') }), read: 'formData' },
    { name: 'a matching integrity', path: '/text', init: () => ({ integrity: `sha256-${createHash('sha256').update('hello').digest('base64')}` }) },
    { name: 'a mismatching integrity', path: '/text', init: () => ({ integrity: `sha256-${createHash('sha256').update('nope').digest('base64')}` }) },
    { name: 'an invalid redirect mode', path: '/text', init: () => ({ redirect: 'sideways' }) },
    { name: 'a GET with a body', path: '/text', init: () => ({ body: 'x' }) },
    { name: 'a forbidden method', path: '/text', init: () => ({ method: 'TRACE' }) },
    { name: 'a stream body without duplex', path: '/count', init: () => ({ method: 'POST', body: new ReadableStream() }) }
  ]

  for (const c of cases) {
    it(`gives the same result for ${c.name}`, async () => {
      const url = `${server.origin}${c.path}`
      const mine = await summarize(() => conduitFetch(url, { ...c.init?.(true), dispatcher: agent } as never) as unknown as Promise<globalThis.Response>, c.read ?? 'text')
      const theirs = await summarize(() => (globalThis.fetch as AnyFetch)(url, c.init?.(false)), c.read ?? 'text')
      assert.deepEqual(normalizeErrors(mine), normalizeErrors(theirs))
    })
  }

  it('gives the same result for a cross-origin redirect', async () => {
    const url = `${server.origin}/redirect?to=${encodeURIComponent(`${other.origin}/text`)}`
    const mine = await summarize(() => conduitFetch(url, { dispatcher: agent }) as unknown as Promise<globalThis.Response>, 'text')
    const theirs = await summarize(() => globalThis.fetch(url), 'text')
    assert.deepEqual(mine, theirs)
  })

  it('gives the same error kind for a refused connection', async () => {
    const mine = await summarize(() => conduitFetch(`${refusedOrigin}/`, { dispatcher: agent }) as unknown as Promise<globalThis.Response>, 'text')
    const theirs = await summarize(() => globalThis.fetch(`${refusedOrigin}/`), 'text')
    assert.deepEqual(mine, theirs)
  })

  it('gives the same result for data: URLs', async () => {
    for (const url of ['data:text/plain;base64,aGk=', 'data:,A%20B', 'data:application/json;charset=utf-8,{"a":1}', 'data:nocomma']) {
      const mine = await summarize(() => conduitFetch(url) as unknown as Promise<globalThis.Response>, 'text')
      const theirs = await summarize(() => globalThis.fetch(url), 'text')
      assert.deepEqual(mine, theirs, url)
    }
  })
})

// Validation messages are each implementation's own words; the kind of error must match.
function normalizeErrors (summary: unknown): unknown {
  const s = summary as Record<string, unknown>
  if ('error' in s && s.message !== 'fetch failed') return { ...s, message: '<validation>' }
  return s
}
