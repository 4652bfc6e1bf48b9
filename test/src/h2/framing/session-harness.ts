/**
 * Opens an {@link H2Session} on a real socket to 127.0.0.1 and records what it reports, for
 * the session tests.
 */

import net from 'node:net'
import { once } from 'node:events'
import { H2Session } from '../../../../src/h2/framing/session.js'
import type { H2SessionInit } from '../../../../src/h2/framing/session-options.js'
import type { HeaderList } from '../../../../src/h2/framing/header-codec.js'
import type { HeadKind, StreamListener } from '../../../../src/h2/framing/h2-stream.js'
import type { LibraryError } from '../../../../src/errors.js'
import { literalCodec } from './literal-codec.js'

/** A session and what it reported. */
export interface OpenSession {
  session: H2Session
  socket: net.Socket
  /** Resolves with the session's onClose error (null when it closed cleanly). */
  closed: Promise<LibraryError | null>
  /** Resolves once the socket closed: nothing is left open. */
  socketClosed: Promise<void>
  /** GOAWAYs the session heard: [code, lastStreamId]. */
  goaways: Array<[number, number]>
}

/** Connects to `port` and starts a session with the test codec. */
export async function openSession (port: number, options: H2SessionInit = {}): Promise<OpenSession> {
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const socketClosed = new Promise<void>((resolve) => { socket.once('close', () => { resolve() }) })
  const goaways: Array<[number, number]> = []
  let close: (error: LibraryError | null) => void = () => {}
  const closed = new Promise<LibraryError | null>((resolve) => { close = resolve })
  const session = new H2Session(socket, literalCodec(), {
    onClose: (error) => { close(error) },
    onGoaway: (code, last) => { goaways.push([code, last]) }
  }, { adaptiveWindow: false, ...options })
  return { session, socket, closed, socketClosed, goaways }
}

/** What one stream reported. */
export interface StreamClose { error: LibraryError | null, notProcessed: boolean }

/** Records a stream's events; reads (consumes) its data at once unless `paused`. */
export class StreamRecorder implements StreamListener {
  readonly heads: Array<[HeadKind, HeaderList, boolean]> = []
  readonly data: Buffer[] = []
  bytes = 0
  ended = false
  paused = false
  writable = 0
  id = 0
  readonly closed: Promise<StreamClose>
  readonly #session: H2Session
  #close: (close: StreamClose) => void = () => {}
  #onData: (() => void) | null = null

  constructor (session: H2Session) {
    this.#session = session
    this.closed = new Promise((resolve) => { this.#close = resolve })
  }

  /** Opens a stream on the session with this recorder as its listener. */
  static open (session: H2Session, headers: HeaderList = GET, endStream = true): StreamRecorder {
    const recorder = new StreamRecorder(session)
    recorder.id = session.request(headers, endStream, recorder)
    return recorder
  }

  onHeaders (headers: HeaderList, kind: HeadKind, endStream: boolean): void {
    this.heads.push([kind, headers, endStream])
  }

  onData (data: Buffer, endStream: boolean): void {
    this.data.push(data)
    this.bytes += data.length
    if (endStream) this.ended = true
    if (!this.paused) this.#session.consumed(this.id, data.length)
    this.#onData?.()
  }

  onClose (error: LibraryError | null, notProcessed: boolean): void {
    this.#close({ error, notProcessed })
  }

  onWritable (): void {
    this.writable++
  }

  /** Resolves once at least `bytes` of data arrived. */
  async received (bytes: number): Promise<void> {
    if (this.bytes >= bytes) return
    await new Promise<void>((resolve) => {
      this.#onData = () => {
        if (this.bytes < bytes) return
        this.#onData = null
        resolve()
      }
    })
  }
}

/** A plain GET's request head. */
export const GET: HeaderList = [[':method', 'GET'], [':scheme', 'http'], [':authority', '127.0.0.1'], [':path', '/']]
/** A 200 response head. */
export const OK: HeaderList = [[':status', '200']]
