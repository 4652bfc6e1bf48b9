/**
 * Reading `new EventSource(url, init)`'s second argument: the standard's `withCredentials`,
 * conduit's `dispatcher`, and undici's `node` member (`dispatcher`, `reconnectionTime`), checked
 * once so a bad value fails the constructor, naming it, instead of a later reconnection.
 * @module
 */

import type { Dispatcher } from '../dispatcher/dispatcher.js'
import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { timerMilliseconds } from '../validation/timer-limit.js'

/** The first reconnection time, until the server sends `retry:` (the HTML standard suggests a few seconds; undici's). */
export const DEFAULT_RECONNECTION_TIME_MS = 3000

/**
 * The most bytes one event's lines may hold together. A stream that never sends a blank line
 * would otherwise grow one event until memory runs out.
 */
export const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

/** The checked options. */
export interface EventSourceOptions {
  withCredentials: boolean
  dispatcher: Dispatcher | undefined
  reconnectionTime: number
  maxEventSize: number
}

const WHERE = 'EventSource'

function readDispatcher (name: string, value: unknown): Dispatcher | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof (value as { dispatch?: unknown }).dispatch !== 'function') {
    throw new InvalidArgumentError(`${WHERE}: ${name} must be a dispatcher (an object with dispatch()), got ${describeValue(value)}`)
  }
  return value as Dispatcher
}

/** Reads and checks `init`; throws a `TypeError` (WebIDL) for a non-object, `InvalidArgumentError` for a bad member. */
export function readEventSourceInit (init: unknown): EventSourceOptions {
  if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
    throw new TypeError(`${WHERE} constructor: eventSourceInitDict must be an object, got ${describeValue(init)}`)
  }
  const dict = (init ?? {}) as Record<string, unknown>
  const node = dict.node ?? {}
  if (typeof node !== 'object' || node === null) {
    throw new InvalidArgumentError(`${WHERE}: node must be an object, got ${describeValue(node)}`)
  }
  const nodeDict = node as Record<string, unknown>
  const maxEventSize = nodeDict.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE
  if (typeof maxEventSize !== 'number' || !Number.isSafeInteger(maxEventSize) || maxEventSize < 1) {
    throw new InvalidArgumentError(`${WHERE}: node.maxEventSize must be a positive integer of bytes, got ${describeValue(maxEventSize)}`)
  }
  return {
    withCredentials: Boolean(dict.withCredentials),
    dispatcher: readDispatcher('node.dispatcher', nodeDict.dispatcher) ?? readDispatcher('dispatcher', dict.dispatcher),
    reconnectionTime: timerMilliseconds(WHERE, 'node.reconnectionTime', nodeDict.reconnectionTime, DEFAULT_RECONNECTION_TIME_MS),
    maxEventSize
  }
}
