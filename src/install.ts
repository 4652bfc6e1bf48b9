/**
 * `install()`: conduit's Web API classes and `fetch` as the globals of the process, as undici's
 * `install()` does. What is installed is one table, {@link INSTALLED_GLOBALS}: a new Web API
 * becomes global by adding its entry there.
 * @module
 */

import { fetch } from './fetch/fetch.js'
import { Headers } from './fetch/headers.js'
import { Request } from './fetch/request.js'
import { Response } from './fetch/response.js'
import { FormData } from './fetch/form-data.js'
import { WebSocket } from './websocket/websocket.js'
import { CloseEvent, ErrorEvent, MessageEvent } from './websocket/dom-events.js'
import { EventSource } from './eventsource/event-source.js'
import { keepRuntimeRequest } from './fetch/foreign-body.js'

/** The globals {@link install} sets, by name, each to conduit's own implementation. */
export const INSTALLED_GLOBALS: Readonly<Record<string, unknown>> = Object.freeze({
  fetch,
  Headers,
  Request,
  Response,
  FormData,
  WebSocket,
  EventSource,
  CloseEvent,
  ErrorEvent,
  MessageEvent
})

/**
 * Puts conduit's `fetch`, `Headers`, `Request`, `Response`, `FormData`, `WebSocket`,
 * `EventSource`, `CloseEvent`, `ErrorEvent` and `MessageEvent` on `globalThis`,
 * replacing the runtime's own, so code that uses the globals runs on conduit.
 * @example
 * import { install } from 'conduit'
 * install()
 * const res = await fetch('http://127.0.0.1:3000/') // conduit's fetch
 */
export function install (): void {
  // A Request of the runtime's class made before (or kept past) the switch still needs the runtime's class to be told apart.
  keepRuntimeRequest()
  const slots = globalThis as unknown as Record<string, unknown>
  for (const [name, value] of Object.entries(INSTALLED_GLOBALS)) slots[name] = value
}
