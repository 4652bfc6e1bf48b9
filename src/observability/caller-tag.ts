/**
 * The caller tag: a label that an API layer built on the dispatchers (fetch is one) puts on its
 * dispatch options to say which requests are its own. Dispatchers and transports pass it to the
 * diagnostics messages without reading it; only observability gives it a meaning: the debug log
 * also writes a tagged request's lines under the `NODE_DEBUG` namespace the tag names, so
 * `NODE_DEBUG=fetch` shows fetch's traffic and not the rest.
 * @module
 */

/** Dispatch option key: the caller tag, a short name such as `'fetch'`. */
export const CALLER_TAG: unique symbol = Symbol.for('conduit.callerTag')

/** The caller tag on dispatch options, or null when there is none or it is not a non-empty string. */
export function callerTagOf (opts: object): string | null {
  const tag = (opts as Record<symbol, unknown>)[CALLER_TAG]
  return typeof tag === 'string' && tag !== '' ? tag : null
}

/**
 * Puts the caller tag `tag` on `opts`. An assignment rather than a computed key in the options'
 * object literal, which V8 defines through a runtime call on every request.
 */
export function tagCaller<T extends object> (opts: T, tag: string): T {
  (opts as Record<symbol, unknown>)[CALLER_TAG] = tag
  return opts
}
