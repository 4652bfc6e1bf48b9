// A minimal HTTP/2 client side for the HPACK interop tests: the client preface, SETTINGS and their
// ACKs, HEADERS (split into CONTINUATION frames when asked) and a reader collecting each header
// block's payloads in the order they arrive. Nothing else of the protocol: no flow control
// (responses are small), no stream states.
import net from 'node:net'

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1')
const FRAME_HEADER = 9
const HEADERS = 0x1
const SETTINGS = 0x4
const RST_STREAM = 0x3
const GOAWAY = 0x7
const CONTINUATION = 0x9
const END_STREAM = 0x1
const ACK = 0x1
const END_HEADERS = 0x4
const PADDED = 0x8
const PRIORITY = 0x20

/** SETTINGS identifiers the tests send (RFC 9113 section 6.5.2). */
export const SETTINGS_HEADER_TABLE_SIZE = 0x1
export const SETTINGS_ENABLE_PUSH = 0x2
export const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6

/** A header block as it came: the stream and the payloads of its HEADERS and CONTINUATION frames. */
export interface RawHeaderBlock {
  streamId: number
  fragments: Buffer[]
}

function frame (type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(FRAME_HEADER)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(streamId, 5)
  return Buffer.concat([head, payload])
}

function settingsPayload (settings: Array<[number, number]>): Buffer {
  const payload = Buffer.alloc(settings.length * 6)
  settings.forEach(([id, value], i) => { payload.writeUInt16BE(id, i * 6); payload.writeUInt32BE(value, i * 6 + 2) })
  return payload
}

/** One raw HTTP/2 connection to a server on 127.0.0.1. */
export class RawH2Connection {
  /** SETTINGS the server sent, each as [identifier, value] pairs, in order. */
  readonly serverSettings: Array<Array<[number, number]>> = []
  private readonly socket: net.Socket
  private buffered = Buffer.alloc(0)
  private current: RawHeaderBlock | null = null
  private readonly blocks: RawHeaderBlock[] = []
  private readonly waiting: Array<{ resolve: (block: RawHeaderBlock) => void, reject: (err: Error) => void }> = []
  private readonly settingsWaiters: Array<(settings: Array<[number, number]>) => void> = []
  private readonly ackWaiters: Array<() => void> = []
  private failure: Error | null = null
  private readonly failureWaiters: Array<(err: Error) => void> = []
  /** Called for each SETTINGS frame of the server, before it is acknowledged. */
  onServerSettings: ((settings: Array<[number, number]>) => void) | null = null

  private constructor (socket: net.Socket) {
    this.socket = socket
    socket.on('data', (chunk: Buffer) => this.read(chunk))
    socket.on('error', (err) => this.fail(err))
    socket.on('close', () => this.fail(new Error('the server closed the connection')))
  }

  /** Connects, sends the preface and a SETTINGS frame with `settings`. */
  static async open (port: number, settings: Array<[number, number]> = []): Promise<RawH2Connection> {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    const connection = new RawH2Connection(socket)
    socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, settingsPayload([[SETTINGS_ENABLE_PUSH, 0], ...settings]))]))
    return connection
  }

  /** Sends a SETTINGS frame; resolves when the server acknowledged it. */
  async sendSettings (settings: Array<[number, number]>): Promise<void> {
    const acked = new Promise<void>((resolve) => this.ackWaiters.push(resolve))
    this.socket.write(frame(SETTINGS, 0, 0, settingsPayload(settings)))
    await acked
  }

  /** Resolves with the next SETTINGS frame of the server (already handled and acknowledged). */
  nextServerSettings (): Promise<Array<[number, number]>> {
    return new Promise((resolve) => this.settingsWaiters.push(resolve))
  }

  /** Sends `block` on `streamId` as HEADERS plus CONTINUATION frames of at most `fragmentSize` octets. */
  sendHeaders (streamId: number, block: Buffer, endStream: boolean, fragmentSize = 16384): void {
    const frames: Buffer[] = []
    for (let at = 0; at < block.length || at === 0; at += fragmentSize) {
      const last = at + fragmentSize >= block.length
      const type = at === 0 ? HEADERS : CONTINUATION
      const flags = (last ? END_HEADERS : 0) | (at === 0 && endStream ? END_STREAM : 0)
      frames.push(frame(type, flags, streamId, block.subarray(at, at + fragmentSize)))
      if (block.length === 0) break
    }
    this.socket.write(Buffer.concat(frames))
  }

  /** Resolves with the next complete header block the server sent. */
  nextHeaderBlock (): Promise<RawHeaderBlock> {
    if (this.failure !== null) return Promise.reject(this.failure)
    const block = this.blocks.shift()
    if (block !== undefined) return Promise.resolve(block)
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }))
  }

  /** Rejects when the server ends the connection (GOAWAY, close) or resets a stream: what a test waits for will not come. */
  failed (): Promise<never> {
    if (this.failure !== null) return Promise.reject(this.failure)
    return new Promise((_resolve, reject) => this.failureWaiters.push(reject))
  }

  /** Closes the socket. */
  close (): void {
    this.socket.destroy()
  }

  private read (chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk])
    while (this.buffered.length >= FRAME_HEADER) {
      const length = this.buffered.readUIntBE(0, 3)
      if (this.buffered.length < FRAME_HEADER + length) return
      const type = this.buffered[3]!
      const flags = this.buffered[4]!
      const streamId = this.buffered.readUInt32BE(5) & 0x7fffffff
      const payload = Buffer.from(this.buffered.subarray(FRAME_HEADER, FRAME_HEADER + length))
      this.buffered = this.buffered.subarray(FRAME_HEADER + length)
      this.handle(type, flags, streamId, payload)
    }
  }

  private handle (type: number, flags: number, streamId: number, payload: Buffer): void {
    if (type === SETTINGS) {
      if ((flags & ACK) !== 0) { this.ackWaiters.shift()?.(); return }
      const settings: Array<[number, number]> = []
      for (let at = 0; at + 6 <= payload.length; at += 6) settings.push([payload.readUInt16BE(at), payload.readUInt32BE(at + 2)])
      this.serverSettings.push(settings)
      this.onServerSettings?.(settings)
      this.socket.write(frame(SETTINGS, ACK, 0, Buffer.alloc(0)))
      this.settingsWaiters.shift()?.(settings)
    } else if (type === HEADERS) {
      let start = 0
      let end = payload.length
      if ((flags & PADDED) !== 0) { end -= payload[0]!; start = 1 }
      if ((flags & PRIORITY) !== 0) start += 5
      this.current = { streamId, fragments: [payload.subarray(start, end)] }
      if ((flags & END_HEADERS) !== 0) this.finishBlock()
    } else if (type === CONTINUATION) {
      this.current?.fragments.push(payload)
      if ((flags & END_HEADERS) !== 0) this.finishBlock()
    } else if (type === RST_STREAM) {
      this.fail(new Error(`RST_STREAM on stream ${streamId} from the server, error code ${payload.readUInt32BE(0)}`))
    } else if (type === GOAWAY) {
      this.fail(new Error(`GOAWAY from the server, error code ${payload.readUInt32BE(4)}`))
    }
    // DATA, WINDOW_UPDATE, PING and the rest play no part in the HPACK tests.
  }

  private fail (err: Error): void {
    this.failure ??= err
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure)
    for (const waiter of this.failureWaiters.splice(0)) waiter(this.failure)
  }

  private finishBlock (): void {
    const block = this.current!
    this.current = null
    const waiter = this.waiting.shift()
    if (waiter !== undefined) waiter.resolve(block)
    else this.blocks.push(block)
  }
}
