/**
 * The per-request decision of the snapshot interceptor: pass through, replay, record, or fail
 * with `No snapshot found` (naming the closest recorded request and how it differs).
 * @module
 */

import { debuglog } from 'node:util'
import { LARGE_READ_BYTES, SnapshotNotFoundError, ResponsePlayer, collectBody, isBufferedBody, keepReadBuffersInHeap, showUrl } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, PlayedResponse } from '../../src/handler.js'
import type { SnapshotResponse } from '../../stores/snapshot-file-store.js'
import { RecordingHandler } from './snapshot-handler.js'
import type { SnapshotRecorder } from './snapshot-recorder.js'
import { requestUrl } from './snapshot-matching.js'

const log = debuglog('conduit:snapshot')

/** Base64 length of a body of LARGE_READ_BYTES. */
const LARGE_BODY_BASE64_CHARS = Math.ceil(LARGE_READ_BYTES / 3) * 4

/** A recorded response as the hooks deliver it: the recorded chunks one by one, or the body whole. */
export function toMockResponse (response: SnapshotResponse): PlayedResponse {
  const body = response.chunks !== undefined
    ? response.chunks.map((c) => Buffer.from(c, 'base64'))
    : response.body === '' ? [] : [Buffer.from(response.body, 'base64')]
  // Each replay decodes a fresh copy: large ones are freed in batches, like large socket reads.
  if (response.body.length >= LARGE_BODY_BASE64_CHARS) keepReadBuffersInHeap()
  return { statusCode: response.statusCode, headers: { ...response.headers }, body, trailers: { ...(response.trailers ?? {}) } }
}

function notFound (recorder: SnapshotRecorder, opts: DispatchOptions): SnapshotNotFoundError {
  const method = typeof opts.method === 'string' ? opts.method : 'GET'
  let message = `No snapshot found for ${method} ${showUrl(requestUrl(opts))}`
  if (!recorder.options.shouldPlayback(opts)) return new SnapshotNotFoundError(`${message} (shouldPlayback returned false)`)
  const closest = recorder.closestSnapshot(opts)
  if (closest === undefined) {
    if (recorder.size() === 0) {
      message += recorder.missingFile === null ? ' (no snapshots are recorded)' : ` (no snapshots are recorded: ${recorder.missingFile} does not exist)`
    }
    return new SnapshotNotFoundError(message)
  }
  message += `\n  closest recorded request: ${closest.request.method} ${showUrl(closest.request.url)}\n  differs in: ${closest.differences.join('; ')}`
  return new SnapshotNotFoundError(message, closest.differences)
}

function fail (handler: DispatchHandler, err: Error): boolean {
  new ResponsePlayer(handler).runError(err)
  return true
}

/**
 * User callbacks (shouldPlayback, normalizeBody, ...) and the dispatch below may throw; the
 * handler must still get its one `onResponseError`, also when this runs in a promise callback.
 */
function decide (recorder: SnapshotRecorder, dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): boolean {
  try {
    return decideOrThrow(recorder, dispatch, opts, handler)
  } catch (err) {
    return fail(handler, err instanceof Error ? err : new Error(String(err)))
  }
}

function decideOrThrow (recorder: SnapshotRecorder, dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): boolean {
  const mode = recorder.options.mode
  if (mode === 'record') return dispatch(opts, new RecordingHandler(opts, handler, recorder))
  if (!recorder.loaded) {
    recorder.ensureLoaded().then(() => decide(recorder, dispatch, opts, handler), (err: Error) => fail(handler, err))
    return true
  }
  const found = recorder.findSnapshot(opts)
  if (found !== undefined) {
    log('replaying %s %s (call %d of %d recorded)', found.request.method, found.request.url, found.callCount, found.responses.length)
    new ResponsePlayer(handler).run(() => toMockResponse(found.response))
    return true
  }
  if (mode === 'update') {
    log('no snapshot, recording %s %s', opts.method, requestUrl(opts).toString())
    return dispatch(opts, new RecordingHandler(opts, handler, recorder))
  }
  const err = notFound(recorder, opts)
  log('%s', err.message)
  return fail(handler, err)
}

/**
 * Handles one request: excluded URLs go straight to `dispatch`; streamed request bodies are read
 * first (they must be hashed and may have to be sent too); then record, replay or fail by mode.
 */
export function dispatchWithSnapshots (recorder: SnapshotRecorder, dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): boolean {
  let excluded: boolean
  try {
    excluded = recorder.isUrlExcluded(opts)
  } catch (err) {
    return fail(handler, err as Error)
  }
  if (excluded) {
    log('excluded, passing through: %s', requestUrl(opts).toString())
    return dispatch(opts, handler)
  }
  if (isBufferedBody(opts.body)) return decide(recorder, dispatch, opts, handler)
  collectBody(opts.body).then(
    (body) => decide(recorder, dispatch, { ...opts, body }, handler),
    (err: Error) => fail(handler, err)
  )
  return true
}
