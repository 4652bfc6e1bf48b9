/**
 * What the request-level APIs do with a streamed request body when the request fails or is
 * aborted: the stream is destroyed with the error, so its producer learns of it and frees its
 * resources (an open file, a generator) instead of waiting forever.
 * @module
 */

interface DestroyableStream {
  destroyed?: boolean
  destroy (err?: Error): unknown
  on (event: string, listener: (...args: unknown[]) => void): unknown
  pipe?: unknown
}

function isDestroyableStream (body: unknown): body is DestroyableStream {
  return body !== null && typeof body === 'object' &&
    typeof (body as DestroyableStream).destroy === 'function' &&
    typeof (body as DestroyableStream).on === 'function'
}

/** Destroys `body` with `err` when it is a stream not destroyed yet; any other body is left alone. */
export function destroyRequestBody (body: unknown, err: Error): void {
  if (!isDestroyableStream(body) || body.destroyed === true) return
  // The caller already reports `err`; the stream's own 'error' event must not crash the process.
  body.on('error', noop)
  body.destroy(err)
}

function noop (): void {}
