import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import diagnosticsChannel from 'node:diagnostics_channel'
import { fetch as undiciFetch } from '../../helpers/undici-reference.js'
import { Agent, Client, fetch, H2CClient, Pool, ProxyAgent, request, Request } from '../../../src/index.js'
import { InvalidArgumentError, LibraryError } from '../../../src/errors.js'
import { CHANNEL_NAMES } from '../../../src/diagnostics.js'
import { redactUserinfo } from '../../../src/observability/redaction.js'
import { runWithNodeDebug, indexUrl } from '../../helpers/debug-child.js'
import { errorLeaks, secretsIn } from '../../helpers/secret-scan.js'
import { startHttpServer, startTcpServer } from '../../helpers/servers.js'

// Every fragment of the password between special characters is a secret of its own.
const SECRETS = ['Pw7kQ', 'Zr4xN', 'Mb2cV']
const PASSWORD = SECRETS.join('')

/** Origins with user information that no parser accepts, or that are refused for another reason. */
const BAD_ORIGINS = [
  `http://u:${PASSWORD}@127.0.0.1:99999`,
  `http://u:${SECRETS[0]}/${SECRETS[1]}@127.0.0.1:80`,
  `http://u:${SECRETS[0]}@${SECRETS[1]}@127.0.0.1:99999`,
  `http://u:${SECRETS[0]}#${SECRETS[1]}@127.0.0.1:80`,
  `http://u:${SECRETS[0]}?${SECRETS[1]}@127.0.0.1:80`,
  `ftp://u:${PASSWORD}@127.0.0.1`,
  `u:${PASSWORD}@127.0.0.1:80`,
  `http://u:${PASSWORD}@host name:80`,
  `http://u:${PASSWORD}@[::1:80`
]

/** Origins that parse but are not valid origins (they carry a path or a query). */
const ORIGINS_WITH_PATH = [`http://u:${PASSWORD}@127.0.0.1:80/path`, `http://u:${PASSWORD}@127.0.0.1:80?q=1`]

function leaksOf (err: unknown): string[] {
  return errorLeaks(err, SECRETS)
}

async function errorOf (attempt: () => unknown): Promise<unknown> {
  try {
    await attempt()
  } catch (err) {
    return err
  }
  assert.fail('expected an error')
}

const dispatchers: Array<[string, (origin: string) => unknown]> = [
  ['new Client()', (origin) => new Client(origin)],
  ['new Pool()', (origin) => new Pool(origin)],
  ['new H2CClient()', (origin) => new H2CClient(origin)],
  ['Agent#request()', async (origin) => await new Agent().request({ origin, path: '/', method: 'GET' })],
  ['request()', async (origin) => await request(origin)]
]

describe('URL user information in errors', () => {
  for (const [name, attempt] of dispatchers) {
    it(`keeps the password out of every rendering of the InvalidArgumentError from ${name}`, async () => {
      const origins = name === 'request()' ? BAD_ORIGINS : [...BAD_ORIGINS, ...ORIGINS_WITH_PATH]
      for (const origin of origins) {
        const err = await errorOf(() => attempt(origin))
        assert.ok(err instanceof InvalidArgumentError, `${origin}: ${String(err)}`)
        assert.equal(err.code, 'LIB_ERR_INVALID_ARG')
        assert.deepEqual(leaksOf(err), [], `${name} leaks for ${origin}: ${err.message}`)
        // The message still names the value, with the credentials masked.
        assert.match(err.message, /\*\*\*@/, err.message)
      }
    })
  }

  it('keeps the password out of the TypeError fetch() and new Request() throw for a URL with credentials', async () => {
    for (const url of [...BAD_ORIGINS, ...ORIGINS_WITH_PATH, `http://u:${PASSWORD}@127.0.0.1:1/`]) {
      // `u:...@host` is a valid URL of scheme `u:`: a Request accepts it and fetch() refuses the scheme.
      const attempts = url.startsWith('u:') ? [async () => await fetch(url)] : [async () => await fetch(url), () => new Request(url)]
      for (const attempt of attempts) {
        const err = await errorOf(attempt)
        assert.ok(err instanceof TypeError, `${url}: ${String(err)}`)
        assert.deepEqual(leaksOf(err), [], `leak for ${url}: ${(err as Error).message}`)
      }
    }
  })

  it('refuses credentials in a fetch URL with a TypeError as undici does, but does not echo them as undici does', async () => {
    const url = `http://u:${PASSWORD}@127.0.0.1:1/`
    const ours = await errorOf(async () => await fetch(url))
    const theirs = await errorOf(async () => await undiciFetch(url))
    assert.ok(ours instanceof TypeError && theirs instanceof TypeError)
    assert.equal((ours as TypeError).message, 'fetch: a request URL may not include credentials: http://***@127.0.0.1:1/')
    // The intended difference: undici's message carries the password.
    assert.ok((theirs as TypeError).message.includes(PASSWORD))
  })

  it('masks everything up to the last @ and keeps strings without one as they are', () => {
    assert.equal(redactUserinfo('http://a:b@c@host:1/p'), 'http://***@host:1/p')
    assert.equal(redactUserinfo('a:b@host'), '***@host')
    assert.equal(redactUserinfo('http://host/'), 'http://host/')
  })
})

describe('URL user information on a working request', () => {
  it('sends no Authorization from the URL, and shows no credentials or header values in the errors, NODE_DEBUG lines or inspect output of Client, Pool, Agent and request()', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/fail') req.socket.destroy()
      else res.end(req.headers.authorization ?? 'no authorization')
    })
    t.after(() => server.close())
    const script = `
      import { inspect } from 'node:util'
      import * as conduit from ${JSON.stringify(indexUrl)}
      const origin = ${JSON.stringify(`http://u:${PASSWORD}@127.0.0.1:${server.port}`)}
      const headers = { 'x-api-key': ${JSON.stringify(SECRETS[2])} }
      const out = []
      const client = new conduit.Client(origin)
      const pool = new conduit.Pool(origin)
      const agent = new conduit.Agent()
      for (const send of [
        (path) => client.request({ path, method: 'GET', headers }),
        (path) => pool.request({ path, method: 'GET', headers }),
        (path) => agent.request({ origin, path, method: 'GET', headers }),
        (path) => conduit.request(origin + path, { dispatcher: agent, headers })
      ]) {
        const res = await send('/ok?token=visible')
        out.push(await res.body.text())
        try { await send('/fail') } catch (err) { out.push(inspect(err, { showHidden: true, depth: 10 }), String(err.stack)) }
      }
      out.push(inspect(client, { showHidden: true, depth: 4 }), inspect(pool, { showHidden: true, depth: 4 }), inspect(agent, { showHidden: true, depth: 4 }))
      await Promise.all([client.close(), pool.close(), agent.close()])
      process.stderr.write(out.join('\\n'))
    `
    const { code, stderr } = await runWithNodeDebug(script, 'conduit')
    assert.equal(code, 0, stderr)
    assert.match(stderr, /sending request to GET http:\/\/127\.0\.0\.1:\d+\/ok\?token=visible/)
    assert.match(stderr, /SocketError/)
    assert.equal(stderr.split('no authorization').length - 1, 4)
    assert.deepEqual(secretsIn(stderr, SECRETS), [])
  })

  it('publishes no part of the credentials on any diagnostics channel', async (t) => {
    const published: unknown[] = []
    const listener = (message: unknown): void => { published.push(message) }
    for (const name of CHANNEL_NAMES) {
      diagnosticsChannel.subscribe(name, listener)
      t.after(() => diagnosticsChannel.unsubscribe(name, listener))
    }
    const server = await startHttpServer((req, res) => {
      if (req.url === '/fail') req.socket.destroy()
      else res.end('ok')
    })
    t.after(() => server.close())
    const origin = `http://u:${PASSWORD}@127.0.0.1:${server.port}`
    const client = new Client(origin)
    const pool = new Pool(origin)
    const agent = new Agent()
    t.after(() => Promise.all([client.close(), pool.close(), agent.close()]))
    for (const send of [
      async (path: string) => await client.request({ path, method: 'GET' }),
      async (path: string) => await pool.request({ path, method: 'GET' }),
      async (path: string) => await agent.request({ origin, path, method: 'GET' })
    ]) {
      assert.equal(await (await send('/ok')).body.text(), 'ok')
      await assert.rejects(send('/fail'), { code: 'LIB_ERR_SOCKET' })
    }
    assert.ok(published.length >= 12, `only ${published.length} messages`)
    assert.deepEqual(secretsIn(published, SECRETS), [])
  })

  it('never puts the target origin\'s credentials on the wire to a proxy, tunnelled or not (undici writes them into the absolute-form request line)', async (t) => {
    const heads: string[] = []
    const proxy = await startTcpServer((socket) => {
      socket.on('error', () => {})
      socket.once('data', (chunk: Buffer) => {
        heads.push(chunk.toString('latin1'))
        socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
      })
    })
    t.after(() => proxy.close())
    for (const proxyTunnel of [true, false]) {
      const agent = new ProxyAgent({ uri: proxy.origin, proxyTunnel })
      t.after(() => agent.close())
      await agent.request({ origin: `http://u:${PASSWORD}@127.0.0.1:9`, path: '/p', method: 'GET' }).then((res) => res.body.dump(), () => {})
    }
    assert.match(heads[0]!, /^CONNECT 127\.0\.0\.1:9 HTTP\/1\.1\r\n/)
    assert.match(heads[1]!, /^GET http:\/\/127\.0\.0\.1:9\/p HTTP\/1\.1\r\n/)
    assert.deepEqual(secretsIn(heads, SECRETS), [])
  })

  it('shows no credentials of the target origin in the errors of a ProxyAgent request', async (t) => {
    const proxy = await startHttpServer((req) => req.socket.destroy())
    t.after(() => proxy.close())
    const agent = new ProxyAgent(proxy.origin)
    t.after(() => agent.close())
    const err = await errorOf(async () => await agent.request({ origin: `http://u:${PASSWORD}@127.0.0.1:1`, path: '/', method: 'GET' }))
    assert.ok(err instanceof LibraryError, String(err))
    assert.deepEqual(leaksOf(err), [])
  })
})
