/**
 * Signals of the request-level APIs: an `AbortSignal` (or any EventTarget with `'abort'`) or an
 * EventEmitter that emits `'abort'`, as undici accepts both.
 * @module
 */

import type { AbortSignalLike } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError, RequestAbortedError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'

/** An EventEmitter used as a signal: it emits `'abort'` once; `aborted`/`reason` are optional. */
export interface EventEmitterSignal {
  /** True once it fired, when the emitter keeps track. */
  readonly aborted?: boolean | undefined
  /** Why it fired, when the emitter says. */
  readonly reason?: unknown
  /** Registers the `'abort'` listener. */
  on (event: 'abort', listener: () => void): unknown
  /** Removes the `'abort'` listener. */
  removeListener (event: 'abort', listener: () => void): unknown
}

/** Any signal the request-level APIs accept. */
export type ApiSignal = AbortSignalLike | EventEmitterSignal

/** Throws unless `signal` is absent, an EventTarget-style signal or an EventEmitter. */
export function checkSignal (who: string, signal: unknown): asserts signal is ApiSignal | null | undefined {
  if (signal == null) return
  const s = signal as Partial<AbortSignalLike & EventEmitterSignal>
  if ((typeof signal !== 'object' && typeof signal !== 'function') || (typeof s.addEventListener !== 'function' && typeof s.on !== 'function')) {
    throw new InvalidArgumentError(`${who}: signal must be an AbortSignal or an EventEmitter, got ${describeValue(signal)}`)
  }
}

/** True for a signal the transport and interceptors can watch themselves (EventTarget style). */
export function isEventTargetSignal (signal: ApiSignal | null | undefined): signal is AbortSignalLike {
  return signal != null && typeof (signal as AbortSignalLike).addEventListener === 'function'
}

/** The error an aborted signal stands for: its reason, or `RequestAbortedError` when it gives none. */
export function abortReason (signal: ApiSignal): Error {
  const reason = signal.reason
  if (reason instanceof Error) return reason
  return reason === undefined ? new RequestAbortedError() : new RequestAbortedError(`Request aborted: ${String(reason)}`, { cause: reason })
}

/**
 * Calls `onAbort` once when `signal` fires (at once, synchronously, if it already has) and
 * returns the function that stops listening.
 */
export function watchSignal (signal: ApiSignal | null | undefined, onAbort: (reason: Error) => void): () => void {
  if (signal == null) return noop
  if (signal.aborted === true) {
    onAbort(abortReason(signal))
    return noop
  }
  const listener = (): void => {
    stop()
    onAbort(abortReason(signal))
  }
  const stop = isEventTargetSignal(signal)
    ? () => signal.removeEventListener('abort', listener)
    : () => { (signal as EventEmitterSignal).removeListener('abort', listener) }
  if (isEventTargetSignal(signal)) signal.addEventListener('abort', listener, { once: true })
  else signal.on('abort', listener)
  return stop
}

function noop (): void {}
