/**
 * upgrade() and connect() through undici and conduit against one server: the socket handed
 * over, the head, opaque, callback arguments and refusals.
 */

import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import type { Duplex } from 'node:stream'
import { both, caught, errorShape } from './harness.js'
import type { Lib } from './harness.js'
import { startCompatServer } from './compat-server.js'
import { UNDICI_MAJOR } from '../helpers/undici-reference.js'
import type { TestServer } from '../helpers/servers.js'
import { startTcpServer } from '../helpers/servers.js'

let server: TestServer

/**
 * The outcomes agree, except that undici 7 sends an already aborted request anyway and fails it
 * with its own abort error, where undici 8 and conduit fail it at once with the signal's reason
 * (docs/undici-differences.md): under undici 7 that entry is left out of the comparison.
 */
function assertSameButUndici7Abort (seen: { conduit: unknown, undici: unknown }, abortedAt: number): void {
  if (UNDICI_MAJOR === 8) {
    assert.deepEqual(seen.conduit, seen.undici)
    return
  }
  const others = (outcomes: unknown): unknown[] => (outcomes as unknown[]).filter((_, i) => i !== abortedAt)
  assert.deepEqual(others(seen.conduit), others(seen.undici))
  assert.deepEqual((seen.undici as Array<[unknown]>)[abortedAt]![0], { error: 'AbortError', code: 'LIB_ERR_ABORTED' })
}

before(async () => { server = await startCompatServer() })
after(() => server.close())

/** Writes `text` to the socket, reads the echo back and closes the socket. */
async function echo (socket: Duplex, text: string): Promise<string> {
  socket.write(text)
  const [chunk] = await once(socket, 'data') as [Buffer]
  socket.destroy()
  return chunk.toString()
}

async function withClient<T> (lib: Lib, run: (client: any) => Promise<T>): Promise<T> {
  const client = new lib.Client(server.origin)
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

describe('upgrade() compared with undici', () => {
  it('hands over the socket with the 101 head and opaque', async () => {
    const seen = await both((lib) => withClient(lib, async (client) => {
      const data = await client.upgrade({ path: '/chat', protocol: 'chat-v1', opaque: 'o' })
      return { upgrade: data.headers.upgrade, path: data.headers['x-path'], opaque: data.opaque, echo: await echo(data.socket, 'hi') }
    }))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { upgrade: 'chat-v1', path: '/chat', opaque: 'o', echo: 'hi' })
  })

  it('asks for Websocket by default, and works from an Agent and as a top-level function', async () => {
    const seen = await both(async (lib) => {
      const agent = new lib.Agent()
      const viaAgent = await agent.upgrade({ origin: server.origin, path: '/a' })
      const viaTop = await lib.upgrade(`${server.origin}/top`, { dispatcher: agent, protocol: 'p2' })
      const result = [viaAgent.headers.upgrade, await echo(viaAgent.socket, 'x'), viaTop.headers['x-path'], viaTop.headers.upgrade]
      viaTop.socket.destroy()
      await agent.close()
      return result
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('calls back with the data, and with { opaque } when the server does not switch', async () => {
    const seen = await both((lib) => withClient(lib, async (client) => {
      const ok = await new Promise<unknown>((resolve) => client.upgrade({ path: '/cb', opaque: 1 }, (err: Error | null, data: any) => {
        data.socket.destroy()
        resolve([err, data.opaque, data.headers['x-path']])
      }))
      const refused = await new Promise<unknown>((resolve) => client.upgrade({ path: '/cb', opaque: 2, method: 'POST', headers: { 'x-no': '1' }, signal: AbortSignal.abort() }, (err: Error | null, data: unknown) => resolve([errorShape(err), data])))
      return [ok, refused]
    }))
    assertSameButUndici7Abort(seen, 1)
    assert.deepEqual((seen.conduit as unknown[])[1], [{ error: 'AbortError', code: undefined }, { opaque: 2 }])
  })

  it('rejects with a SocketError when the server answers with an ordinary response', async () => {
    const seen = await both(async (lib) => {
      const plain = new lib.Client('http://127.0.0.1:1')
      const refused = await caught(plain.upgrade({ path: '/' }))
      await plain.close()
      return refused
    })
    assert.deepEqual(seen.conduit, seen.undici)
  })

  it('refuses a 101 without an Upgrade header with a SocketError, and closes its socket', async (t) => {
    const closed: boolean[] = []
    const bare = await startTcpServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\n\r\n'))
      socket.on('close', () => closed.push(true))
    })
    t.after(() => bare.close())
    const seen = await both(async (lib) => {
      const agent = new lib.Agent()
      const outcome = await caught(agent.upgrade({ origin: bare.origin, path: '/', protocol: 'websocket' }))
      await agent.destroy()
      return outcome
    })
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { error: 'SocketError', code: 'LIB_ERR_SOCKET' })
    for (let i = 0; i < 300 && closed.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.equal(closed.length, 2)
  })
})

describe('connect() compared with undici', () => {
  it('opens a tunnel and hands over the socket with status, head and opaque', async () => {
    const seen = await both((lib) => withClient(lib, async (client) => {
      const data = await client.connect({ path: 'example.test:443', opaque: 'c' })
      return { statusCode: data.statusCode, target: data.headers['x-target'], opaque: data.opaque, echo: await echo(data.socket, 'tunnel') }
    }))
    assert.deepEqual(seen.conduit, seen.undici)
    assert.deepEqual(seen.conduit, { statusCode: 200, target: 'example.test:443', opaque: 'c', echo: 'tunnel' })
  })

  it('calls back, and fails the same way when aborted or refused', async () => {
    const seen = await both((lib) => withClient(lib, async (client) => {
      const ok = await new Promise<unknown>((resolve) => client.connect({ path: 'a.test:1', opaque: 'x' }, (err: Error | null, data: any) => {
        data.socket.destroy()
        resolve([err, data.statusCode, data.opaque])
      }))
      const aborted = await new Promise<unknown>((resolve) => client.connect({ path: 'a.test:1', opaque: 'y', signal: AbortSignal.abort() }, (err: Error | null, data: unknown) => resolve([errorShape(err), data])))
      const refused = await caught(new lib.Agent().connect({ origin: 'http://127.0.0.1:1', path: 'a.test:1' }))
      return [ok, aborted, refused]
    }))
    assertSameButUndici7Abort(seen, 1)
    assert.deepEqual((seen.conduit as unknown[])[1], [{ error: 'AbortError', code: undefined }, { opaque: 'y' }])
  })
})
