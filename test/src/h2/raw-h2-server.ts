/**
 * A bare HTTP/2 server on a TCP socket that writes frames by hand, for hostile-server tests
 * node:http2 cannot play (it corrects a GOAWAY's last stream id, and refuses to send a header
 * block larger than the peer allows). It answers the connection preface and SETTINGS, records
 * every frame it receives, and hands each request's HEADERS to the test's handler.
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** Frame types (RFC 9113 section 6). */
export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7, CONTINUATION: 9 } as const
/** Frame flags: END_STREAM, END_HEADERS, and ACK on SETTINGS. */
export const FLAG = { END_STREAM: 0x1, END_HEADERS: 0x4, ACK: 0x1 } as const
/** The default SETTINGS_MAX_FRAME_SIZE and the length of the client's connection preface. */
const MAX_FRAME = 16_384
const PREFACE_LENGTH = 24

/** A frame the server received. */
export interface Frame { type: number, flags: number, streamId: number, payload: Buffer }

/** One client connection, as the handler sees it. */
export interface RawConnection {
  send: (type: number, flags: number, streamId: number, payload: Buffer) => void
  /** Sends a header block, split into HEADERS and CONTINUATION frames as large as allowed. */
  sendHeaderBlock: (streamId: number, block: Buffer, endStream: boolean) => void
  goaway: (lastStreamId: number, code: number) => void
  rst: (streamId: number, code: number) => void
  socket: net.Socket
}

/** A running raw server. */
export interface RawH2Server {
  origin: string
  connections: number
  /** Every frame received, on every connection. */
  frames: Frame[]
  close: () => Promise<void>
}

export function frame (type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(streamId, 5)
  return Buffer.concat([head, payload])
}

/** An HPACK integer with an `n`-bit prefix (RFC 7541 section 5.1). */
function hpackInt (value: number, n: number, first: number): Buffer {
  const max = (1 << n) - 1
  if (value < max) return Buffer.from([first | value])
  const out = [first | max]
  let rest = value - max
  while (rest >= 128) {
    out.push((rest & 127) | 128)
    rest >>>= 7
  }
  out.push(rest)
  return Buffer.from(out)
}

/** An HPACK literal field without indexing, new name, no Huffman (RFC 7541 section 6.2.2). */
export function literalField (name: string, value: string): Buffer {
  const n = Buffer.from(name)
  const v = Buffer.from(value)
  return Buffer.concat([Buffer.from([0]), hpackInt(n.length, 7, 0), n, hpackInt(v.length, 7, 0), v])
}

/** `:status: 200` from the HPACK static table. */
export const STATUS_200 = Buffer.from([0x88])

export function startRawH2Server (onRequest: (conn: RawConnection, streamId: number) => void): Promise<RawH2Server> {
  const sockets = new Set<net.Socket>()
  const result: RawH2Server = {
    origin: '',
    connections: 0,
    frames: [],
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  }
  const server = net.createServer((socket) => {
    result.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    const conn: RawConnection = {
      socket,
      send: (type, flags, streamId, payload) => { if (!socket.destroyed) socket.write(frame(type, flags, streamId, payload)) },
      sendHeaderBlock: (streamId, block, endStream) => {
        let offset = 0
        do {
          const first = offset === 0
          const part = block.subarray(offset, offset + MAX_FRAME)
          offset += MAX_FRAME
          const flags = (offset >= block.length ? FLAG.END_HEADERS : 0) | (first && endStream ? FLAG.END_STREAM : 0)
          conn.send(first ? FRAME.HEADERS : FRAME.CONTINUATION, flags, streamId, part)
        } while (offset < block.length)
      },
      goaway: (lastStreamId, code) => {
        const payload = Buffer.alloc(8)
        payload.writeUInt32BE(lastStreamId, 0)
        payload.writeUInt32BE(code, 4)
        conn.send(FRAME.GOAWAY, 0, 0, payload)
      },
      rst: (streamId, code) => {
        const payload = Buffer.alloc(4)
        payload.writeUInt32BE(code, 0)
        conn.send(FRAME.RST_STREAM, 0, streamId, payload)
      }
    }
    conn.send(FRAME.SETTINGS, 0, 0, Buffer.alloc(0))
    let buffered = Buffer.alloc(0)
    let prefaceSeen = false
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (!prefaceSeen) {
        if (buffered.length < PREFACE_LENGTH) return
        buffered = buffered.subarray(PREFACE_LENGTH)
        prefaceSeen = true
      }
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3)
        if (buffered.length < 9 + length) return
        const received: Frame = { type: buffered[3]!, flags: buffered[4]!, streamId: buffered.readUInt32BE(5) & 0x7fffffff, payload: Buffer.from(buffered.subarray(9, 9 + length)) }
        buffered = buffered.subarray(9 + length)
        result.frames.push(received)
        if (received.type === FRAME.SETTINGS && (received.flags & FLAG.ACK) === 0) conn.send(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(0))
        if (received.type === FRAME.HEADERS) onRequest(conn, received.streamId)
      }
    })
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      result.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve(result)
    })
  })
}
