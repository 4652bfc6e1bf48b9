// The opt-in undici code style: errors carry undici's codes, `errors.UndiciError` is
// `LibraryError`, and undici's own classes recognise conduit's errors, so libraries that decide by
// `err.code` (a reverse proxy mapping timeouts to 504 and retrying reset sockets, a database client
// sorting failures into timeouts and connection errors) behave as they do on undici.
import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { Socket } from 'node:net'
import { spawnSync } from 'node:child_process'
import { undici } from '../helpers/undici-reference.js'
import { Agent, LIBRARY_ERROR_CODES, LibraryError, Pool, UNDICI_ERROR_CODES, errorCodeStyle, errors, interceptors, setErrorCodeStyle } from '../../src/index.js'
import type { LibraryErrorName } from '../../src/index.js'
import { startHttpServer, startTcpServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { indexUrl } from '../helpers/debug-child.js'

function undiciStyle (t: TestContext): void {
  setErrorCodeStyle('undici')
  t.after(() => setErrorCodeStyle('conduit'))
}

/** Something that sends a request with a headers timeout: conduit's Pool or undici's. */
interface Upstream {
  request: (opts: { path: string, method: string }) => Promise<{ statusCode: number, body: { text: () => Promise<string> } }>
  close: () => Promise<void>
}

/**
 * A reverse proxy written the way fastify-reply-from handles upstream failures: a headers
 * timeout is a 504, a refused connection a 503, a reset socket on a GET is tried again (twice at
 * most), anything else a 500. It decides by undici's codes only.
 */
async function replyFromStyleProxy (t: TestContext, upstream: Upstream): Promise<TestServer<http.Server>> {
  const proxy = await startHttpServer((req, res) => {
    const forward = async (retriesLeft: number): Promise<void> => {
      try {
        const { statusCode, body } = await upstream.request({ path: req.url ?? '/', method: req.method ?? 'GET' })
        res.writeHead(statusCode)
        res.end(await body.text())
      } catch (err) {
        const code = (err as { code?: string }).code
        if ((code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') && req.method === 'GET' && retriesLeft > 0) {
          await forward(retriesLeft - 1)
          return
        }
        res.writeHead(code === 'UND_ERR_HEADERS_TIMEOUT' ? 504 : code === 'ECONNREFUSED' ? 503 : 500)
        res.end(String(code))
      }
    }
    void forward(2)
  })
  t.after(async () => { await upstream.close(); await proxy.close() })
  return proxy
}

async function statusThrough (proxy: TestServer): Promise<{ status: number, body: string }> {
  const res = await fetch(`${proxy.origin}/item`)
  return { status: res.status, body: await res.text() }
}

/** An upstream that never answers. */
async function silentUpstream (t: TestContext): Promise<TestServer> {
  const server = await startTcpServer(() => {})
  t.after(() => server.close())
  return server
}

/** An upstream that resets the first connection as the request arrives, then answers `fine`. */
async function resettingUpstream (t: TestContext): Promise<TestServer> {
  let connections = 0
  const server = await startTcpServer((socket: Socket) => {
    const first = connections++ === 0
    socket.once('data', () => {
      if (first) socket.resetAndDestroy()
      else socket.end('HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nfine')
    })
  })
  t.after(() => server.close())
  return server
}

/**
 * How a database client written like elastic-transport sorts a failed request: an abort is not
 * retried, a headers timeout is a TimeoutError (retried after a while), the rest a ConnectionError
 * (retried at once on another node).
 */
function elasticStyleKind (err: { code?: string }): string {
  switch (err.code) {
    case 'UND_ERR_ABORTED': return 'RequestAbortedError'
    case 'UND_ERR_HEADERS_TIMEOUT': return 'TimeoutError'
    default: return 'ConnectionError'
  }
}

describe('Error code style', () => {
  it('gives every error class conduit\'s LIB_ code by default and undici\'s code under the undici style', (t) => {
    assert.equal(errorCodeStyle(), 'conduit')
    const make = (name: LibraryErrorName): LibraryError => {
      const Class = (errors as unknown as Record<string, new (...args: unknown[]) => LibraryError>)[name]!
      return name === 'HTTPParserError' ? new Class('bad', undefined) : new Class('bad', 1002, { data: { count: 1 } })
    }
    for (const name of Object.keys(LIBRARY_ERROR_CODES) as LibraryErrorName[]) {
      assert.equal(make(name).code, LIBRARY_ERROR_CODES[name], name)
    }
    undiciStyle(t)
    for (const name of Object.keys(LIBRARY_ERROR_CODES) as LibraryErrorName[]) {
      const expected = (UNDICI_ERROR_CODES as Partial<Record<string, string>>)[name] ?? LIBRARY_ERROR_CODES[name]
      assert.equal(make(name).code, expected, name)
    }
  })

  it('lists, for every code undici has, the code undici gives (no other undici code, none missing)', () => {
    const ours = new Set(Object.values(UNDICI_ERROR_CODES))
    const theirs = Object.values(undici.errors)
      .map((Class) => { try { return (new (Class as new () => { code?: string })()).code } catch { return undefined } })
      .filter((code): code is string => typeof code === 'string' && code.startsWith('UND_'))
    const unmatched = theirs.filter((code) => !ours.has(code as never))
    assert.deepEqual(unmatched, [])
    assert.ok(theirs.includes('UND_ERR_HEADERS_TIMEOUT'))
  })

  it('answers 504 for a headers timeout behind a proxy that branches on UND_ERR_HEADERS_TIMEOUT, as on undici', async (t) => {
    const upstream = await silentUpstream(t)
    const theirs = await replyFromStyleProxy(t, new undici.Pool(upstream.origin, { headersTimeout: 50 }) as unknown as Upstream)
    assert.deepEqual(await statusThrough(theirs), { status: 504, body: 'UND_ERR_HEADERS_TIMEOUT' })

    const conduitStyle = await replyFromStyleProxy(t, new Pool(upstream.origin, { headersTimeout: 50 }))
    assert.deepEqual(await statusThrough(conduitStyle), { status: 500, body: 'LIB_ERR_HEADERS_TIMEOUT' })

    undiciStyle(t)
    const ours = await replyFromStyleProxy(t, new Pool(upstream.origin, { headersTimeout: 50 }))
    assert.deepEqual(await statusThrough(ours), { status: 504, body: 'UND_ERR_HEADERS_TIMEOUT' })
  })

  it('retries a GET whose socket the upstream reset, behind a proxy that retries on UND_ERR_SOCKET, as on undici', async (t) => {
    const theirs = await replyFromStyleProxy(t, new undici.Pool((await resettingUpstream(t)).origin) as unknown as Upstream)
    assert.deepEqual(await statusThrough(theirs), { status: 200, body: 'fine' })

    const conduitStyle = await replyFromStyleProxy(t, new Pool((await resettingUpstream(t)).origin))
    assert.deepEqual(await statusThrough(conduitStyle), { status: 500, body: 'LIB_ERR_SOCKET' })

    undiciStyle(t)
    const ours = await replyFromStyleProxy(t, new Pool((await resettingUpstream(t)).origin))
    assert.deepEqual(await statusThrough(ours), { status: 200, body: 'fine' })
  })

  it('sorts timeouts, resets and aborts as a client written for undici\'s codes does', async (t) => {
    const kinds = async (agent: { request: (opts: object) => Promise<unknown>, close: () => Promise<void> }): Promise<string[]> => {
      const silent = await silentUpstream(t)
      const reset = await resettingUpstream(t)
      const failures = [
        agent.request({ origin: silent.origin, path: '/', method: 'GET', headersTimeout: 50 }),
        agent.request({ origin: reset.origin, path: '/', method: 'POST', body: 'x' }),
        agent.request({ origin: silent.origin, path: '/', method: 'GET', signal: AbortSignal.timeout(20) })
      ]
      const kinds = await Promise.all(failures.map(async (p) => await p.then(() => 'answered', (err: { code?: string, name?: string }) =>
        err.name === 'TimeoutError' ? 'RequestAbortedError' : elasticStyleKind(err))))
      await agent.close()
      return kinds
    }
    const theirs = await kinds(new undici.Agent() as never)
    assert.equal(theirs[0], 'TimeoutError')
    assert.equal(theirs[2], 'RequestAbortedError')
    undiciStyle(t)
    assert.deepEqual(await kinds(new Agent() as never), theirs)
  })

  it('makes errors.UndiciError an alias of LibraryError, and lets undici\'s own classes recognise conduit\'s errors', (t) => {
    assert.equal(errors.UndiciError, undefined)
    assert.equal(new errors.HeadersTimeoutError() instanceof undici.errors.HeadersTimeoutError, false)
    undiciStyle(t)
    assert.equal(errors.UndiciError, LibraryError)
    const timeout = new errors.HeadersTimeoutError()
    assert.ok(timeout instanceof errors.UndiciError!)
    assert.ok(timeout instanceof undici.errors.HeadersTimeoutError)
    assert.ok(timeout instanceof undici.errors.UndiciError)
    assert.equal(timeout instanceof undici.errors.SocketError, false)
    assert.ok(new errors.RequestAbortedError() instanceof undici.errors.RequestAbortedError)
    assert.ok(new errors.ProxyConnectionError('no proxy', undefined as never) instanceof errors.LibraryError)
  })

  it('keeps the retry interceptor retrying reset sockets, with errorCodes in either spelling', async (t) => {
    undiciStyle(t)
    for (const errorCodes of [undefined, ['UND_ERR_SOCKET'], ['LIB_ERR_SOCKET']]) {
      const upstream = await resettingUpstream(t)
      const agent = new Agent().compose(interceptors.retry({ minTimeout: 1, ...(errorCodes === undefined ? {} : { errorCodes }) }))
      t.after(() => agent.close())
      const { statusCode, body } = await agent.request({ origin: upstream.origin, path: '/', method: 'GET' })
      assert.equal(statusCode, 200)
      assert.equal(await body.text(), 'fine')
    }
  })

  it('refuses a style that is not one of the two with InvalidArgumentError', () => {
    assert.throws(() => setErrorCodeStyle('UND' as never), { code: 'LIB_ERR_INVALID_ARG', message: /style must be 'conduit' or 'undici', got "UND"/ })
    assert.equal(errorCodeStyle(), 'conduit')
  })

  it('takes the style from CONDUIT_ERROR_CODES, and warns and keeps conduit\'s for a value it does not know', () => {
    const script = `const { errors, errorCodeStyle } = await import(${JSON.stringify(indexUrl)}); console.log(errorCodeStyle(), new errors.SocketError().code, typeof errors.UndiciError)`
    const run = (value: string): { stdout: string, stderr: string } => {
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, CONDUIT_ERROR_CODES: value }, encoding: 'utf8' })
      return { stdout: result.stdout.trim(), stderr: result.stderr }
    }
    assert.equal(run('undici').stdout, 'undici UND_ERR_SOCKET function')
    assert.equal(run('conduit').stdout, 'conduit LIB_ERR_SOCKET undefined')
    const bad = run('UND_')
    assert.equal(bad.stdout, 'conduit LIB_ERR_SOCKET undefined')
    assert.match(bad.stderr, /CONDUIT_ERROR_CODES must be 'conduit' or 'undici', got "UND_"; using 'conduit'/)
  })
})
