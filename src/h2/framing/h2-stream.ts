/**
 * One HTTP/2 stream a client opened, as its session tracks it: its state (RFC 9113 section 5.1;
 * a client's streams never leave idle but by its own HEADERS, and are never reserved, since push
 * is refused), its windows both ways, and the data waiting for send window.
 * @module
 */

import type { LibraryError } from '../../errors.js'
import type { HeaderList } from './header-codec.js'

/** What a stream's header block is: a 1xx head, the final response head, or trailers. */
export type HeadKind = 'informational' | 'response' | 'trailers'

/** Where a stream's events go; the session calls each at most as the protocol allows. */
export interface StreamListener {
  /** A decoded header block: 1xx heads first, then the response head, then trailers (with `endStream`). */
  onHeaders: (headers: HeaderList, kind: HeadKind, endStream: boolean) => void
  /**
   * Response body bytes (padding removed). The listener tells the session when it has read them
   * with `consumed(streamId, bytes)`: only then does the window open again.
   */
  onData: (data: Buffer, endStream: boolean) => void
  /**
   * The stream ended: `error` null when both sides ended it cleanly. `notProcessed` is true when
   * the server said it did not process the request (GOAWAY past it, REFUSED_STREAM: RFC 9113
   * section 8.7), so the caller may send it again.
   */
  onClose: (error: LibraryError | null, notProcessed: boolean) => void
  /** All data written to the stream went out after some of it had to wait for window. */
  onWritable?: () => void
}

/** The states of section 5.1 a client's open stream goes through. */
export type StreamState = 'open' | 'half-closed-local' | 'half-closed-remote'

/** A stream's bookkeeping. */
export class H2Stream {
  readonly id: number
  readonly listener: StreamListener
  state: StreamState = 'open'
  /** Bytes this side may still send: the peer's window for the stream. */
  sendWindow: number
  /** Bytes the peer may still send on the stream before it must wait for WINDOW_UPDATE. */
  receiveWindow: number
  /** The window this side keeps open for the stream, which consumed bytes are returned towards. */
  receiveTarget: number
  /** Bytes the listener read that are not yet returned to the peer in a WINDOW_UPDATE. */
  unacknowledged = 0
  /** True once the final (non-1xx) response head arrived. */
  finalHead = false
  /** Data written and waiting for window, and whether the last of it ends the stream. */
  pending: Buffer[] = []
  pendingBytes = 0
  endAfterPending = false
  /** Trailers to send once the queued data went out, encoded only then so blocks keep their order. */
  trailers: HeaderList | null = null
  /** True when a write had to wait: onWritable is due once the queue empties. */
  blocked = false

  constructor (id: number, listener: StreamListener, sendWindow: number, receiveWindow: number, endStream: boolean) {
    this.id = id
    this.listener = listener
    this.sendWindow = sendWindow
    this.receiveWindow = receiveWindow
    this.receiveTarget = receiveWindow
    if (endStream) this.state = 'half-closed-local'
  }

  /** True while the peer may still send frames that carry data or headers. */
  get remoteOpen (): boolean {
    return this.state !== 'half-closed-remote'
  }

  /** True while this side may still send data. */
  get localOpen (): boolean {
    return this.state !== 'half-closed-local'
  }
}
