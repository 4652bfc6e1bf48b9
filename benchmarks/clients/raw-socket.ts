/**
 * The ceiling row: a client written straight on `net.Socket`, with no library. Each keep-alive
 * connection carries one request at a time: a prebuilt request head (and the reused upload) in
 * one write, then the response read by finding the end of its head and counting `content-length`
 * body bytes. It does less than any HTTP client must (no header parsing, no validation), so its
 * CPU per request is the floor the kernel and Node's sockets set.
 *
 * Usage (started by the transport runner): node raw-socket.js request <origin|memory> <connections>
 * @module
 */

import net from 'node:net'
import type { Duplex } from 'node:stream'
import { MEMORY_ORIGIN, MemorySocket } from '../origins/memory-socket.js'
import { serveRounds } from './measure.js'
import type { BenchClient, RequestDone } from './measure.js'
import type { Scenario } from '../transport-scenarios.js'

const HEAD_END = Buffer.from('\r\n\r\n')
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i

/** One keep-alive connection reading one response at a time. */
class RawConnection {
  readonly socket: Duplex
  #done: RequestDone | null = null
  #head: Buffer | null = null
  #remaining = -1
  #bytes = 0
  readonly #onIdle: (connection: RawConnection) => void

  constructor (socket: Duplex, onIdle: (connection: RawConnection) => void) {
    this.socket = socket
    this.#onIdle = onIdle
    socket.on('data', (chunk: Buffer) => this.#read(chunk))
    socket.on('error', (err: Error) => this.#finish(err))
  }

  send (request: Buffer, body: Buffer | null, done: RequestDone): void {
    this.#done = done
    this.#remaining = -1
    this.#bytes = 0
    if (body === null) this.socket.write(request)
    else {
      this.socket.cork()
      this.socket.write(request)
      this.socket.write(body)
      this.socket.uncork()
    }
  }

  #read (chunk: Buffer): void {
    if (this.#remaining === -1) {
      const data = this.#head === null ? chunk : Buffer.concat([this.#head, chunk])
      const end = data.indexOf(HEAD_END)
      if (end === -1) {
        this.#head = data
        return
      }
      this.#head = null
      const match = CONTENT_LENGTH.exec(data.toString('latin1', 0, end + 2))
      if (match === null) {
        this.#finish(new Error('raw socket client: response without content-length'))
        return
      }
      this.#remaining = Number(match[1])
      chunk = data.subarray(end + 4)
    }
    this.#bytes += chunk.length
    this.#remaining -= chunk.length
    if (this.#remaining <= 0) this.#finish(null)
  }

  #finish (err: Error | null): void {
    const done = this.#done
    if (done === null) return
    this.#done = null
    if (err === null) this.#onIdle(this)
    done(err, this.#bytes)
  }
}

const [, target, connections] = process.argv.slice(2)
const memory = target === 'memory'
const url = new URL(memory ? MEMORY_ORIGIN : target!)
const idle: RawConnection[] = []
const all: RawConnection[] = []
const waiting: Array<() => void> = []
const requests = new Map<string, Buffer>()
let payload: Buffer | null = null

function connection (): RawConnection {
  const socket = memory ? new MemorySocket() : net.connect({ host: url.hostname, port: Number(url.port), noDelay: true })
  const conn = new RawConnection(socket, (c) => {
    const next = waiting.shift()
    idle.push(c)
    next?.()
  })
  all.push(conn)
  return conn
}

function requestHead (scenario: Scenario): Buffer {
  let head = requests.get(scenario.name)
  if (head === undefined) {
    const length = scenario.requestBytes > 0 ? `content-length: ${scenario.requestBytes}\r\n` : ''
    head = Buffer.from(`${scenario.method} ${scenario.path} HTTP/1.1\r\nhost: ${url.host}\r\n${length}\r\n`, 'latin1')
    requests.set(scenario.name, head)
  }
  return head
}

const client: BenchClient = {
  send: (scenario, done) => {
    const go = (): void => {
      const conn = idle.pop() ?? (all.length < Number(connections) ? connection() : null)
      if (conn === null) {
        waiting.push(go)
        return
      }
      if (scenario.requestBytes > 0 && payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
      conn.send(requestHead(scenario), scenario.requestBytes > 0 ? payload : null, done)
    }
    go()
  },
  close: async () => { for (const conn of all) conn.socket.destroy() }
}

serveRounds(client)
