/**
 * The typed frames a {@link FrameReader} yields (RFC 9113 section 6), one shape per frame type.
 * Payload fields are views into the bytes that arrived (no copy when a frame lay in one chunk);
 * padding is already removed.
 * @module
 */

/**
 * A DATA frame (section 6.1), or a piece of one. `flowLength` is the whole payload, padding
 * included, as flow control counts it; `padding` the part of it that is not data. An unpadded
 * frame split across reads comes in pieces as its bytes arrive: the first carries the frame's
 * `flowLength`, each later one has `continued` set and a `flowLength` of 0, and only the last can
 * end the stream. Joining the pieces would copy every byte of a large body once more.
 */
export interface DataFrame { kind: 'DATA', streamId: number, endStream: boolean, data: Buffer, flowLength: number, padding: number, continued: boolean }
/** A HEADERS frame (section 6.2): a field block fragment; its priority fields are read and dropped. */
export interface HeadersFrame { kind: 'HEADERS', streamId: number, endStream: boolean, endHeaders: boolean, fragment: Buffer }
/** A PRIORITY frame (section 6.3), which a client ignores. */
export interface PriorityFrame { kind: 'PRIORITY', streamId: number }
/** An RST_STREAM frame (section 6.4). */
export interface RstStreamFrame { kind: 'RST_STREAM', streamId: number, errorCode: number }
/** A SETTINGS frame (section 6.5): its (identifier, value) pairs in order, none when `ack`. */
export interface SettingsFrame { kind: 'SETTINGS', ack: boolean, settings: Array<[number, number]> }
/** A PUSH_PROMISE frame (section 6.6). */
export interface PushPromiseFrame { kind: 'PUSH_PROMISE', streamId: number, promisedStreamId: number, endHeaders: boolean, fragment: Buffer }
/** A PING frame (section 6.7): 8 bytes of opaque data. */
export interface PingFrame { kind: 'PING', ack: boolean, data: Buffer }
/** A GOAWAY frame (section 6.8). */
export interface GoawayFrame { kind: 'GOAWAY', lastStreamId: number, errorCode: number, debugData: Buffer }
/** A WINDOW_UPDATE frame (section 6.9); stream 0 is the connection's window. */
export interface WindowUpdateFrame { kind: 'WINDOW_UPDATE', streamId: number, increment: number }
/** A CONTINUATION frame (section 6.10). */
export interface ContinuationFrame { kind: 'CONTINUATION', streamId: number, endHeaders: boolean, fragment: Buffer }
/** A frame of a type RFC 9113 does not define, which an endpoint must ignore (sections 4.1, 5.5). */
export interface UnknownFrame { kind: 'UNKNOWN', type: number, flags: number, streamId: number, length: number }

/** Any frame a reader yields. */
export type Frame = DataFrame | HeadersFrame | PriorityFrame | RstStreamFrame | SettingsFrame | PushPromiseFrame |
PingFrame | GoawayFrame | WindowUpdateFrame | ContinuationFrame | UnknownFrame
