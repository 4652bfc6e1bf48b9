/**
 * The messages conduit publishes on undici's diagnostics channels (`undici:request:create`,
 * `undici:client:connected`...), typed under undici's names (`DiagnosticsChannel.RequestCreateMessage`),
 * so a subscriber written for undici types its handlers unchanged. Types only.
 * @module
 */

import type { Socket } from 'node:net'
import type { HookHeaders, HttpMethod } from './contracts/dispatch-contract.js'
import type * as connect from './connect.js'

/** Message types of undici's diagnostics channels, as conduit publishes them. */
export declare namespace DiagnosticsChannel {
  /** The request a message is about. */
  export interface Request {
    /** The origin the request goes to. */
    origin?: string | URL
    /** True once the response ended. */
    completed: boolean
    /** Request method. */
    method?: HttpMethod
    /** Request target with the query. */
    path: string
    /** Request headers: a flat `[name, value, ...]` list. */
    headers: unknown
  }
  /** The response head a message is about. */
  export interface Response {
    /** Response status code. */
    statusCode: number
    /** Response status message. */
    statusText: string
    /** Response headers: raw `[name, value, ...]` buffers. */
    headers: Buffer[] | HookHeaders
  }
  /** Where a connection goes. */
  export interface ConnectParams {
    /** `host[:port]`. */
    host: string
    /** Host name or address. */
    hostname: string
    /** `http:` or `https:`. */
    protocol: string
    /** Port as written in the origin; empty for the scheme's default. */
    port: string
    /** TLS server name, or null. */
    servername: string | null
  }
  /** The connector that opens the connection. */
  export type Connector = connect.Connector
  /** `undici:request:create`. */
  export interface RequestCreateMessage {
    /** The request. */
    request: Request
  }
  /** `undici:request:bodySent`. */
  export interface RequestBodySentMessage {
    /** The request. */
    request: Request
  }
  /** `undici:request:bodyChunkSent`. */
  export interface RequestBodyChunkSentMessage {
    /** The request. */
    request: Request
    /** The chunk written. */
    chunk: Uint8Array | string
  }
  /** `undici:request:bodyChunkReceived`. */
  export interface RequestBodyChunkReceivedMessage {
    /** The request. */
    request: Request
    /** The chunk received. */
    chunk: Buffer
  }
  /** `undici:request:headers`. */
  export interface RequestHeadersMessage {
    /** The request. */
    request: Request
    /** The response head. */
    response: Response
  }
  /** `undici:request:trailers`. */
  export interface RequestTrailersMessage {
    /** The request. */
    request: Request
    /** Raw trailers, `[name, value, ...]`. */
    trailers: Buffer[]
  }
  /** `undici:request:error`. */
  export interface RequestErrorMessage {
    /** The request. */
    request: Request
    /** Why it failed. */
    error: Error
  }
  /** `undici:client:sendHeaders`. */
  export interface ClientSendHeadersMessage {
    /** The request. */
    request: Request
    /** The request head as written. */
    headers: string
    /** The connection it goes out on. */
    socket: Socket
  }
  /** `undici:client:beforeConnect`. */
  export interface ClientBeforeConnectMessage {
    /** Where the connection goes. */
    connectParams: ConnectParams
    /** The connector. */
    connector: Connector
  }
  /** `undici:client:connected`. */
  export interface ClientConnectedMessage {
    /** The new connection. */
    socket: Socket
    /** Where it goes. */
    connectParams: ConnectParams
    /** The connector. */
    connector: Connector
  }
  /** `undici:client:connectError`. */
  export interface ClientConnectErrorMessage {
    /** Why it failed. */
    error: Error
    /** The socket that failed. */
    socket: Socket
    /** Where it went. */
    connectParams: ConnectParams
    /** The connector. */
    connector: Connector
  }
}
