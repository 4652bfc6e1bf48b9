/**
 * The HTTP/1.1 connection hands itself to a queued request only once the parser left the read
 * the last response came in, and bytes read while that request is still held in the turn's write
 * batch cannot answer it. Driven through in-memory sockets, so each read lands exactly where the
 * case needs it.
 */

import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Duplex } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Client } from '../../../src/index.js'

const EVIL = 'HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nEVIL'

/** An in-memory socket: `heads` gets each request head the client writes; `answer` is called once per head. */
class ScriptedSocket extends Duplex {
  readonly heads: string[] = []
  readonly answer: (socket: ScriptedSocket, head: string) => void
  #pending = ''
  constructor (answer: (socket: ScriptedSocket, head: string) => void) {
    super()
    this.answer = answer
  }

  override _read (): void {}
  override _write (chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#pending += chunk.toString('latin1')
    for (let end = this.#pending.indexOf('\r\n\r\n'); end !== -1; end = this.#pending.indexOf('\r\n\r\n')) {
      const head = this.#pending.slice(0, end)
      this.#pending = this.#pending.slice(end + 4)
      this.heads.push(head)
      this.answer(this, head)
    }
    callback()
  }

  override _destroy (err: Error | null, callback: (err: Error | null) => void): void {
    callback(err)
  }
}

function honest (head: string): string {
  const path = head.split(' ')[1]!
  return `HTTP/1.1 200 OK\r\ncontent-length: ${path.length}\r\n\r\n${path}`
}

/** A Client whose n-th connection is `scripts[n]` (later connections answer honestly). */
function clientOver (scripts: Array<(socket: ScriptedSocket, head: string) => void>): { client: Client, sockets: ScriptedSocket[] } {
  const sockets: ScriptedSocket[] = []
  const client = new Client('http://127.0.0.1:1', {
    connect: (_opts, callback) => {
      const script = scripts[sockets.length] ?? ((socket, head) => socket.push(honest(head)))
      const socket = new ScriptedSocket(script)
      sockets.push(socket)
      process.nextTick(callback, null, socket)
    }
  })
  return { client, sockets }
}

describe('HTTP/1.1 connection reuse and the bytes of one read', () => {
  it('does not give a queued request the response that followed a 204 in the same read', async (t) => {
    const { client, sockets } = clientOver([(socket) => socket.push(`HTTP/1.1 204 No Content\r\n\r\n${EVIL}`)])
    t.after(() => client.destroy())
    const first = client.request({ path: '/first', method: 'GET' })
    const second = client.request({ path: '/second', method: 'GET' })
    assert.equal((await first).statusCode, 204)
    assert.equal(await (await second).body.text(), '/second')
    // The second request went out on a fresh connection; the first never carried it.
    assert.equal(sockets.length, 2)
    assert.deepEqual(sockets[0]!.heads.map((h) => h.split(' ')[1]), ['/first'])
  })

  it('does not give a request still held in the write batch the bytes of a second read of the same turn', async (t) => {
    // The server answers in two reads back to back: the 204 frees the connection, the second
    // request is written (held until the turn ends), then the extra response arrives.
    const { client, sockets } = clientOver([(socket) => {
      setImmediate(() => {
        socket.push('HTTP/1.1 204 No Content\r\n\r\n')
        socket.push(EVIL)
      })
    }])
    t.after(() => client.destroy())
    const first = client.request({ path: '/first', method: 'GET' })
    assert.equal((await first).statusCode, 204)
    const second = client.request({ path: '/second', method: 'GET' })
    assert.equal(await (await second).body.text(), '/second')
    assert.equal(sockets.length, 2)
    assert.deepEqual(sockets[0]!.heads.map((h) => h.split(' ')[1]), ['/first'])
  })

  it('sends a request queued behind a held one again when the bytes after it arrive before it left, even a POST', async (t) => {
    const { client, sockets } = clientOver([(socket, head) => {
      if (!head.includes('/first')) return
      setImmediate(() => {
        socket.push('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
        socket.push(EVIL)
      })
    }])
    t.after(() => client.destroy())
    const first = client.request({ path: '/first', method: 'GET' })
    const second = client.request({ path: '/second', method: 'POST', body: 'payload' })
    assert.equal(await (await first).body.text(), 'ok')
    // Nothing of the POST reached the first connection, so sending it on the next is safe.
    assert.equal(await (await second).body.text(), '/second')
    assert.deepEqual(sockets.map((s) => s.heads.map((h) => h.split(' ')[1])), [['/first'], ['/second']])
  })

  it('still reuses the connection when nothing follows the response', async (t) => {
    const { client, sockets } = clientOver([(socket, head) => socket.push(honest(head))])
    t.after(() => client.destroy())
    const bodies = await Promise.all(['/a', '/b', '/c'].map(async (path) => (await client.request({ path, method: 'GET' })).body.text()))
    assert.deepEqual(bodies, ['/a', '/b', '/c'])
    assert.equal(sockets.length, 1)
  })

  it('writes a request dispatched from inside the last response\'s end only after the parser is done', async (t) => {
    const { client, sockets } = clientOver([(socket, head) => {
      // The answer to /first carries the extra response right behind it, in the same read.
      socket.push(head.includes('/first') ? `HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok${EVIL}` : honest(head))
    }])
    t.after(() => client.destroy())
    let inner: Promise<string> | undefined
    await new Promise<void>((resolve, reject) => {
      client.dispatch({ path: '/first', method: 'GET' }, {
        onResponseEnd () {
          inner = client.request({ path: '/inner', method: 'GET' }).then(({ body }) => body.text())
          resolve()
        },
        onResponseError (_controller, err) { reject(err) }
      })
    })
    assert.equal(await inner, '/inner')
    await nextTurn()
    assert.deepEqual(sockets.map((s) => s.heads.map((h) => h.split(' ')[1])), [['/first'], ['/inner']])
  })
})
