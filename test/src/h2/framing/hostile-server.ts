/**
 * A scripted HTTP/2 "server" on 127.0.0.1 for the session tests: it reads the client's preface
 * and frames with a parser of its own, sends its SETTINGS and ACKs the client's unless told not
 * to, and otherwise writes exactly the raw frames a test's script says, hostile ones included.
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import type { HeaderList } from '../../../../src/h2/framing/header-codec.js'
import { encodeLiteralBlock } from './literal-codec.js'
import { rawFrame, settingsPayload, u32 } from './raw-frames.js'

/** A frame the client sent. */
export interface ClientFrame { type: number, flags: number, streamId: number, payload: Buffer }

const PREFACE_LENGTH = 24

/** One client connection as a script drives it. */
export class HostileConnection {
  readonly frames: ClientFrame[] = []
  /** True once the client's first 24 bytes were the connection preface (RFC 9113 section 3.4). */
  prefaceValid = false
  readonly socket: net.Socket
  /** Resolves once the client ended or closed the connection. */
  readonly ended: Promise<void>
  #buffer = Buffer.alloc(0)
  #prefaceSeen = false
  #waiters: Array<{ test: (frame: ClientFrame) => boolean, resolve: (frame: ClientFrame) => void }> = []
  readonly #ackSettings: boolean

  constructor (socket: net.Socket, ackSettings: boolean) {
    this.socket = socket
    this.#ackSettings = ackSettings
    socket.on('data', (chunk: Buffer) => { this.#read(chunk) })
    socket.on('error', () => {})
    this.ended = new Promise((resolve) => {
      socket.once('end', () => { resolve() })
      socket.once('close', () => { resolve() })
    })
  }

  /** Writes one frame. */
  send (type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): void {
    if (!this.socket.destroyed) this.socket.write(rawFrame(type, flags, streamId, payload))
  }

  /** Writes raw bytes. */
  write (bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes)
  }

  /** Sends a HEADERS frame carrying `headers` in the test codec's encoding (END_HEADERS set). */
  headers (streamId: number, headers: HeaderList, endStream: boolean, extraFlags = 0): void {
    this.send(1, 0x4 | (endStream ? 0x1 : 0) | extraFlags, streamId, encodeLiteralBlock(headers))
  }

  /** Sends SETTINGS with these pairs. */
  settings (settings: Array<[number, number]>): void {
    this.send(4, 0, 0, settingsPayload(settings))
  }

  /** Sends WINDOW_UPDATE. */
  windowUpdate (streamId: number, increment: number): void {
    this.send(8, 0, streamId, u32(increment))
  }

  /** The first frame the client sent, or sends later, that passes `test`. */
  async waitFor (test: (frame: ClientFrame) => boolean): Promise<ClientFrame> {
    const found = this.frames.find(test)
    if (found !== undefined) return found
    return await new Promise((resolve) => { this.#waiters.push({ test, resolve }) })
  }

  /** The client's GOAWAY, whenever it comes: its error code. */
  async goawayCode (): Promise<number> {
    return (await this.waitFor((frame) => frame.type === 7)).payload.readUInt32BE(4)
  }

  /** The client's RST_STREAM on `streamId`: its error code. */
  async resetCode (streamId: number): Promise<number> {
    return (await this.waitFor((frame) => frame.type === 3 && frame.streamId === streamId)).payload.readUInt32BE(0)
  }

  #read (chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk])
    if (!this.#prefaceSeen) {
      if (this.#buffer.length < PREFACE_LENGTH) return
      this.prefaceValid = this.#buffer.toString('latin1', 0, PREFACE_LENGTH) === 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
      this.#buffer = this.#buffer.subarray(PREFACE_LENGTH)
      this.#prefaceSeen = true
    }
    while (this.#buffer.length >= 9) {
      const length = this.#buffer.readUIntBE(0, 3)
      if (this.#buffer.length < 9 + length) return
      const frame: ClientFrame = {
        type: this.#buffer[3]!,
        flags: this.#buffer[4]!,
        streamId: this.#buffer.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(this.#buffer.subarray(9, 9 + length))
      }
      this.#buffer = this.#buffer.subarray(9 + length)
      this.frames.push(frame)
      if (frame.type === 4 && (frame.flags & 1) === 0 && this.#ackSettings) this.send(4, 1, 0)
      for (const waiter of [...this.#waiters]) {
        if (!waiter.test(frame)) continue
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
        waiter.resolve(frame)
      }
    }
  }
}

/** How the server starts each connection. */
export interface HostileOptions {
  /** Send the server preface (an empty SETTINGS, or these settings) at once; default true. */
  preface?: boolean | Array<[number, number]>
  /** ACK the client's SETTINGS; default true. */
  ackSettings?: boolean
}

/** A running scripted server. */
export interface HostileServer {
  port: number
  connections: HostileConnection[]
  /** The first connection, once a client opened it. */
  connection: () => Promise<HostileConnection>
  close: () => Promise<void>
}

/** Starts a scripted server; `script` runs for each connection. */
export async function startHostileServer (script: (connection: HostileConnection) => unknown, options: HostileOptions = {}): Promise<HostileServer> {
  const connections: HostileConnection[] = []
  let first: (connection: HostileConnection) => void = () => {}
  const firstConnection = new Promise<HostileConnection>((resolve) => { first = resolve })
  const server = net.createServer((socket) => {
    const connection = new HostileConnection(socket, options.ackSettings ?? true)
    connections.push(connection)
    const preface = options.preface ?? true
    if (preface !== false) connection.settings(preface === true ? [] : preface)
    first(connection)
    Promise.resolve(script(connection)).catch(() => { socket.destroy() })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    connection: async () => await firstConnection,
    close: async () => {
      for (const connection of connections) connection.socket.destroy()
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  }
}
