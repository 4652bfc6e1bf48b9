// undici 8's defaults and connection options: HTTP/2 offered by ALPN unless allowH2 is false,
// h2Options (and useH2c), autoSelectFamily and the socket options of `connect` reaching
// net.connect for http: origins, a pre-shared TLS session, and the `tls` option merged under
// `connect`, each compared with the reference undici.
import { describe, it } from 'node:test'
import type { TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http2 from 'node:http2'
import tls from 'node:tls'
import type { AddressInfo, LookupFunction } from 'node:net'
import { UNDICI_MAJOR, undici } from '../../helpers/undici-reference.js'
import { Agent, Client, Pool } from '../../../src/index.js'
import { startHttpServer, startHttpsServer, trustTestCa } from '../../helpers/servers.js'
import { startH2cServer, respond } from '../../helpers/h2-server.js'
import { serverCrt, serverKey } from '../../helpers/certs.js'

/** A TLS server that speaks HTTP/2 and HTTP/1.1 (the client's ALPN offer decides) and answers with the version it spoke. */
async function dualServer (t: TestContext): Promise<string> {
  const server = http2.createSecureServer({ key: serverKey, cert: serverCrt, allowHTTP1: true }, (req, res) => res.end(req.httpVersion))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  t.after(() => { for (const s of sessions) s.destroy() })
  const sessions = new Set<http2.ServerHttp2Session>()
  server.on('session', (s) => { sessions.add(s) })
  return `https://localhost:${(server.address() as AddressInfo).port}`
}

interface AnyClient { request: (o: { path: string, method: string, origin?: string }) => Promise<{ body: { text: () => Promise<string> } }>, close: () => Promise<void> }

async function versionThrough (client: AnyClient): Promise<string> {
  const { body } = await client.request({ path: '/', method: 'GET' })
  const text = await body.text()
  await client.close()
  return text
}

/** A lookup that records the options net.connect asks with, and resolves every name to 127.0.0.1. */
function recordingLookup (): { lookup: LookupFunction, seen: Array<Record<string, unknown>> } {
  const seen: Array<Record<string, unknown>> = []
  const lookup = ((hostname: string, options: Record<string, unknown>, callback: (...args: unknown[]) => void): void => {
    seen.push({ family: options.family, all: options.all === true, hints: options.hints })
    if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }])
    else callback(null, '127.0.0.1', 4)
  }) as unknown as LookupFunction
  return { lookup, seen }
}

describe('undici 8 defaults and connection options', () => {
  it('offers HTTP/2 by ALPN when allowH2 is unset, as undici 8 does, and HTTP/1.1 only with allowH2: false', async (t) => {
    const origin = await dualServer(t)
    assert.equal(await versionThrough(new Client(origin, { connect: trustTestCa })), '2.0')
    assert.equal(await versionThrough(new Pool(origin, { connect: trustTestCa })), '2.0')
    assert.equal(await versionThrough(new Client(origin, { connect: trustTestCa, allowH2: false })), '1.1')
    assert.equal(await versionThrough(new Client(origin, { connect: { ...trustTestCa, allowH2: false } })), '1.1')
    // undici 7 offered HTTP/1.1 only unless asked (docs/undici-differences.md, "undici 7 and undici 8").
    assert.equal(await versionThrough(new undici.Client(origin, { connect: trustTestCa }) as unknown as AnyClient), UNDICI_MAJOR === 8 ? '2.0' : '1.1')
    assert.equal(await versionThrough(new undici.Client(origin, { connect: trustTestCa, allowH2: false }) as unknown as AnyClient), '1.1')
  })

  it('keeps plain http: origins on HTTP/1.1 unless h2c is asked for, with useH2c or h2Options.useH2c as with undici', async (t) => {
    const server = await startH2cServer((stream) => respond(stream, 200, 'h2c'))
    t.after(() => server.close())
    for (const options of [{ useH2c: true }, { h2Options: { useH2c: true } }, { h2c: true }]) {
      const client = new Client(server.origin, options)
      t.after(() => client.close())
      const { body } = await client.request({ path: '/', method: 'GET' })
      assert.equal(await body.text(), 'h2c', JSON.stringify(options))
    }
    const plain = await startHttpServer((req, res) => res.end(req.httpVersion))
    t.after(() => plain.close())
    assert.equal(await versionThrough(new Client(plain.origin)), '1.1')
  })

  it('takes the HTTP/2 limits from h2Options over their top-level spellings', async (t) => {
    let open = 0
    let most = 0
    const held: Array<() => void> = []
    const server = await startH2cServer((stream) => {
      open++
      most = Math.max(most, open)
      held.push(() => { open--; respond(stream, 200, 'ok') })
      // Two streams at once are held a moment, time for any more the client might open.
      if (open === 2) setTimeout(() => { for (const release of held.splice(0)) release() }, 30)
    })
    t.after(() => server.close())
    const client = new Client(server.origin, { h2c: true, maxConcurrentStreams: 50, h2Options: { maxConcurrentStreams: 2, pingInterval: 0, settings: { initialWindowSize: 70_000 } } })
    t.after(() => client.close())
    const bodies = await Promise.all(Array.from({ length: 6 }, async () => await (await client.request({ path: '/', method: 'GET' })).body.text()))
    assert.deepEqual(bodies, Array(6).fill('ok'))
    assert.equal(most, 2)
  })

  it('refuses bad HTTP/2 and family options with InvalidArgumentError naming them, as undici refuses them', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ h2Options: 'fast' }, /Client: h2Options must be an object, got "fast"/],
      [{ h2Options: { maxConcurrentStreams: 0 } }, /Client: h2Options\.maxConcurrentStreams must be a positive integer, got 0/],
      [{ h2Options: { useH2c: 'yes' } }, /Client: h2Options\.useH2c must be a boolean, got "yes"/],
      [{ h2Options: { settings: { initialWindowSize: 10 } } }, /Client: h2Options\.settings\.initialWindowSize must be an integer from 65535/],
      [{ h2Options: { pingInterval: -1 } }, /Client: h2Options\.pingInterval must be a number of milliseconds/],
      [{ useH2c: 1 }, /Client: useH2c must be a boolean, got 1/],
      [{ allowH2: 'no' }, /Client: allowH2 must be a boolean, got "no"/],
      [{ autoSelectFamily: 'on' }, /Client: autoSelectFamily must be a boolean, got "on"/],
      [{ autoSelectFamilyAttemptTimeout: 2.5 }, /Client: autoSelectFamilyAttemptTimeout must be an integer of milliseconds/],
      [{ tls: 'strict' }, /Client: tls must be an object of TLS options, got "strict"/],
      [{ connect: { session: 'abc' } }, /buildConnector\(\): session must be a Buffer/]
    ]
    for (const [options, message] of cases) {
      assert.throws(() => new Client('https://localhost:1', options as never), { code: 'LIB_ERR_INVALID_ARG', message }, JSON.stringify(options))
    }
    // undici refuses these too; the others it takes and misbehaves later, or ignores
    // (docs/undici-differences.md, "Options").
    for (const options of [{ useH2c: 1 }, { allowH2: 'no' }, { autoSelectFamilyAttemptTimeout: 2.5 }]) {
      assert.throws(() => new undici.Client('https://localhost:1', options as never), { name: 'InvalidArgumentError' }, `undici: ${JSON.stringify(options)}`)
    }
  })

  it('hands connect\'s family and hints, and autoSelectFamily, to net.connect for http: origins, as undici does', async (t) => {
    const server = await startHttpServer((req, res) => res.end('ok'))
    t.after(() => server.close())
    const url = `http://conduit.test:${server.port}`
    const seenBy = async (make: (lookup: LookupFunction) => AnyClient): Promise<Array<Record<string, unknown>>> => {
      const { lookup, seen } = recordingLookup()
      assert.equal(await versionThrough(make(lookup)), 'ok')
      return seen
    }
    const withFamily = (lookup: LookupFunction): Record<string, unknown> => ({ connect: { lookup, family: 4, hints: 0, autoSelectFamily: false } })
    const ours = await seenBy((lookup) => new Client(url, withFamily(lookup)))
    const theirs = await seenBy((lookup) => new undici.Client(url, withFamily(lookup) as never) as unknown as AnyClient)
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours, [{ family: 4, all: false, hints: 0 }])

    // autoSelectFamily makes net.connect ask for every address, to try them in turn.
    const happy = (lookup: LookupFunction): Record<string, unknown> => ({ autoSelectFamily: true, autoSelectFamilyAttemptTimeout: 250, connect: { lookup } })
    const oursHappy = await seenBy((lookup) => new Client(url, happy(lookup)))
    const theirsHappy = await seenBy((lookup) => new undici.Client(url, happy(lookup) as never) as unknown as AnyClient)
    assert.deepEqual(oursHappy.map((s) => s.all), theirsHappy.map((s) => s.all))
    assert.deepEqual(oursHappy.map((s) => s.all), [true])
  })

  it('resumes a pre-shared TLS session given as connect.session', async (t) => {
    const server = await startHttpsServer((req, res) => res.end('ok'))
    t.after(() => server.close())
    const reused: boolean[] = []
    server.server.prependListener('request', (req) => { reused.push((req.socket as tls.TLSSocket).isSessionReused()) })
    // A session from a connection of our own, then offered to a connector that caches none itself.
    const session = await new Promise<Buffer>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: server.port, servername: 'localhost', ...trustTestCa }, () => {
        socket.write('GET / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n')
      })
      socket.on('session', (s: Buffer) => { resolve(s); socket.destroy() })
      socket.on('error', reject)
    })
    reused.length = 0
    const client = new Client(server.origin, { allowH2: false, maxCachedSessions: 0, connect: { ...trustTestCa, session } })
    t.after(() => client.close())
    assert.equal(await (await client.request({ path: '/', method: 'GET' })).body.text(), 'ok')
    assert.deepEqual(reused, [true])
  })

  it('merges the tls option under connect for Client, Pool and Agent, so a self-signed upstream is trusted, as undici does', async (t) => {
    const server = await startHttpsServer((req, res) => res.end('trusted'))
    t.after(() => server.close())
    const get = async (dispatcher: AnyClient, origin?: string): Promise<string> => {
      const { body } = await dispatcher.request({ origin, path: '/', method: 'GET' })
      const text = await body.text()
      await dispatcher.close()
      return text
    }
    assert.equal(await get(new Client(server.origin, { tls: trustTestCa })), 'trusted')
    assert.equal(await get(new Pool(server.origin, { tls: trustTestCa })), 'trusted')
    assert.equal(await get(new Agent({ tls: trustTestCa }), server.origin), 'trusted')
    assert.equal(await get(new undici.Agent({ tls: trustTestCa } as never) as unknown as AnyClient, server.origin), 'trusted')
    // connect wins where both set a field, as in undici.
    await assert.rejects(get(new Agent({ tls: trustTestCa, connect: { ca: [] as never, rejectUnauthorized: true } }), server.origin))
  })
})
