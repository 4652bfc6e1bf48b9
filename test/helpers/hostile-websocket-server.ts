/**
 * A WebSocket server written for tests over raw `net` sockets, so it can send anything: frames
 * that break RFC 6455, handshake answers no real server gives, or nothing at all. It records the
 * frames the client sends (unmasked), so a test can check what the client answered.
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { createHash } from 'node:crypto'
import { deflateRawSync, constants as zlibConstants } from 'node:zlib'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** A frame the client sent, unmasked. */
export interface ClientFrame { fin: boolean, rsv1: boolean, opcode: number, masked: boolean, payload: Buffer }

/** One accepted connection, after the handshake. */
export interface HostileConnection {
  socket: net.Socket
  /** The handshake request's headers, lower-case names. */
  headers: Record<string, string>
  /** The handshake request's header lines as they were sent. */
  rawLines: string[]
  /** Frames the client sent so far. */
  frames: ClientFrame[]
  /** Settles with the client's close frame (or null when the socket closed without one). */
  closeFrame: Promise<ClientFrame | null>
  /** Settles when the socket closed. */
  closed: Promise<void>
}

/** How the server answers the handshake. */
export interface HostileOptions {
  /** The whole answer head; `{accept}` is replaced by the correct accept value. */
  response?: (accept: string, headers: Record<string, string>) => string
  /** `Sec-WebSocket-Extensions` to answer with. */
  extensions?: string
  /** Keep writing after the client ended its side (a server that ignores the client's FIN). */
  allowHalfOpen?: boolean
}

/** A running hostile server. */
export interface HostileServer {
  url: string
  port: number
  /** Connections accepted so far. */
  connections: HostileConnection[]
  close: () => Promise<void>
}

/** A server frame (unmasked); `rsv` is the bits 0x40/0x20/0x10 to set. */
export function frame (opcode: number, payload: Uint8Array | string = Buffer.alloc(0), { fin = true, rsv = 0 }: { fin?: boolean, rsv?: number } = {}): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload)
  const length = body.length
  let head: Buffer
  if (length < 126) head = Buffer.from([0, length])
  else if (length < 0x10000) {
    head = Buffer.from([0, 126, 0, 0])
    head.writeUInt16BE(length, 2)
  } else {
    head = Buffer.alloc(10)
    head[1] = 127
    head.writeBigUInt64BE(BigInt(length), 2)
  }
  head[0] = (fin ? 0x80 : 0) | rsv | opcode
  return Buffer.concat([head, body])
}

/** A close frame with `code` (none when undefined) and a reason given as text or bytes. */
export function closeFrame (code?: number, reason: string | Buffer = ''): Buffer {
  if (code === undefined) return frame(0x8)
  const body = Buffer.concat([Buffer.alloc(2), Buffer.from(reason)])
  body.writeUInt16BE(code, 0)
  return frame(0x8, body)
}

/** A permessage-deflate payload (no context takeover): raw deflate without the sync-flush tail. */
export function deflated (data: string | Buffer): Buffer {
  const out = deflateRawSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH })
  return out.subarray(0, out.length - 4)
}

function parseClientFrames (buffer: Buffer): { frames: ClientFrame[], rest: Buffer } {
  const frames: ClientFrame[] = []
  let at = 0
  for (;;) {
    if (buffer.length - at < 2) break
    const b0 = buffer[at]!
    const b1 = buffer[at + 1]!
    let length = b1 & 0x7f
    let head = 2
    if (length === 126) {
      if (buffer.length - at < 4) break
      length = buffer.readUInt16BE(at + 2)
      head = 4
    } else if (length === 127) {
      if (buffer.length - at < 10) break
      length = Number(buffer.readBigUInt64BE(at + 2))
      head = 10
    }
    const masked = (b1 & 0x80) !== 0
    const keyLength = masked ? 4 : 0
    if (buffer.length - at < head + keyLength + length) break
    const key = buffer.subarray(at + head, at + head + keyLength)
    const payload = Buffer.from(buffer.subarray(at + head + keyLength, at + head + keyLength + length))
    if (masked) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ key[i & 3]!
    frames.push({ fin: (b0 & 0x80) !== 0, rsv1: (b0 & 0x40) !== 0, opcode: b0 & 0x0f, masked, payload })
    at += head + keyLength + length
  }
  return { frames, rest: buffer.subarray(at) }
}

/** Starts the server; `onConnection` runs for every completed handshake. */
export function startHostileServer (onConnection: (connection: HostileConnection) => void, options: HostileOptions = {}): Promise<HostileServer> {
  const connections: HostileConnection[] = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer({ allowHalfOpen: options.allowHalfOpen ?? false }, (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let head: Buffer = Buffer.alloc(0)
    const onHead = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end === -1) return
      socket.off('data', onHead)
      const lines = head.subarray(0, end).toString('latin1').split('\r\n').slice(1)
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      const accept = createHash('sha1').update((headers['sec-websocket-key'] ?? '') + GUID).digest('base64')
      const answer = options.response?.(accept, headers) ??
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n${options.extensions !== undefined ? `Sec-WebSocket-Extensions: ${options.extensions}\r\n` : ''}\r\n`
      let pending: Buffer = head.subarray(end + 4)
      let settleClose!: (frame: ClientFrame | null) => void
      const connection: HostileConnection = {
        socket,
        headers,
        rawLines: lines,
        frames: [],
        closeFrame: new Promise((resolve) => { settleClose = resolve }),
        closed: new Promise((resolve) => socket.once('close', () => resolve()))
      }
      void connection.closed.then(() => settleClose(null))
      socket.on('data', (chunk: Buffer) => {
        const { frames, rest } = parseClientFrames(Buffer.concat([pending, chunk]))
        pending = rest
        for (const f of frames) {
          connection.frames.push(f)
          if (f.opcode === 0x8) settleClose(f)
        }
      })
      connections.push(connection)
      socket.write(answer)
      onConnection(connection)
    }
    socket.on('data', onHead)
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `ws://127.0.0.1:${port}`,
        port,
        connections,
        close: () => new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => done())
        })
      })
    })
  })
}
