/**
 * The server's settings as a session last received them (RFC 9113 section 6.5.2), starting at
 * the protocol's initial values, with the rules that tie one SETTINGS to the ones before it.
 * @module
 */

import { connectionError } from './protocol-error.js'
import { DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW_SIZE, ErrorCode, SettingId } from './protocol.js'

/** The server's settings in force. */
export class RemoteSettings {
  /** SETTINGS_HEADER_TABLE_SIZE: what the client's encoder's dynamic table may hold. */
  headerTableSize = 4096
  /** SETTINGS_MAX_CONCURRENT_STREAMS: unlimited until the server says. */
  maxConcurrentStreams = Infinity
  /** SETTINGS_INITIAL_WINDOW_SIZE: each new stream's send window. */
  initialWindowSize = DEFAULT_WINDOW_SIZE
  /** SETTINGS_MAX_FRAME_SIZE: the longest frame payload the client sends. */
  maxFrameSize = DEFAULT_MAX_FRAME_SIZE
  /** SETTINGS_MAX_HEADER_LIST_SIZE: advisory, unlimited until the server says. */
  maxHeaderListSize = Infinity
  /** SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441): extended CONNECT allowed. */
  enableConnectProtocol = false
  /** True once the server's first SETTINGS arrived. */
  received = false

  /** Applies one SETTINGS frame's pairs in order (values already range-checked by the frame reader). */
  apply (settings: ReadonlyArray<readonly [number, number]>): void {
    for (const [id, value] of settings) {
      switch (id) {
        case SettingId.HEADER_TABLE_SIZE: this.headerTableSize = value; break
        case SettingId.ENABLE_PUSH:
          if (value !== 0) throw connectionError(ErrorCode.PROTOCOL_ERROR, 'a server sent SETTINGS_ENABLE_PUSH=1 (RFC 9113 section 6.5.2)')
          break
        case SettingId.MAX_CONCURRENT_STREAMS: this.maxConcurrentStreams = value; break
        case SettingId.INITIAL_WINDOW_SIZE: this.initialWindowSize = value; break
        case SettingId.MAX_FRAME_SIZE: this.maxFrameSize = value; break
        case SettingId.MAX_HEADER_LIST_SIZE: this.maxHeaderListSize = value; break
        case SettingId.ENABLE_CONNECT_PROTOCOL:
          if (value === 0 && this.enableConnectProtocol) {
            throw connectionError(ErrorCode.PROTOCOL_ERROR, 'SETTINGS_ENABLE_CONNECT_PROTOCOL went back from 1 to 0 (RFC 8441 section 3)')
          }
          this.enableConnectProtocol = value === 1
          break
        // Unknown settings are ignored (section 6.5.2).
      }
    }
    this.received = true
  }
}
