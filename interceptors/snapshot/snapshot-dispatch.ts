/**
 * The per-request decision of the snapshot interceptor: pass through, replay, record, or fail
 * with `No snapshot found` (naming the closest recorded request and how it differs).
 * @module
 */

import { debuglog } from 'node:util'
import { SnapshotNotFoundError, SnapshotStaleError, ResponsePlayer, collectBody, copyOptions, isBufferedBody } from '../../src/handler.js'
import type { Dispatch, DispatchHandler, DispatchOptions, PlayedResponse } from '../../src/handler.js'
import type { SnapshotResponse } from '../../stores/snapshot-file-store.js'
import { RecordingHandler } from './snapshot-handler.js'
import type { SnapshotMatch, SnapshotRecorder } from './snapshot-recorder.js'
import { TimedBody } from './timed-body.js'

const log = debuglog('conduit:snapshot')

/**
 * A recorded response as the hooks deliver it: the recorded chunks one by one, or the body
 * whole; with a `replaySpeed`, each chunk after its recorded delay divided by it.
 */
export function toMockResponse (response: SnapshotResponse, replaySpeed = 0): PlayedResponse {
  const chunks = response.chunks !== undefined
    ? response.chunks.map((c) => Buffer.from(c, 'base64'))
    : response.body === '' ? [] : [Buffer.from(response.body, 'base64')]
  const delays = replaySpeed > 0 ? response.chunkDelaysMs?.map((ms) => ms / replaySpeed) : undefined
  const body = delays !== undefined && delays.some((ms) => ms > 0) ? new TimedBody(chunks, delays) : chunks
  return { statusCode: response.statusCode, headers: { ...response.headers }, body, trailers: { ...(response.trailers ?? {}) } }
}

/** Milliseconds to wait before the head of a replayed response. */
function headDelay (response: SnapshotResponse, replaySpeed: number): number {
  return replaySpeed > 0 && response.delayMs !== undefined ? response.delayMs / replaySpeed : 0
}

function notFound (recorder: SnapshotRecorder, opts: DispatchOptions): SnapshotNotFoundError {
  const method = typeof opts.method === 'string' ? opts.method : 'GET'
  let message = `No snapshot found for ${method} ${recorder.shownUrl(opts)}`
  if (recorder.options.mode === 'lockdown' && recorder.isUrlExcluded(opts)) {
    return new SnapshotNotFoundError(`${message} (lockdown mode lets no request through to the network, excludeUrls included)`)
  }
  if (!recorder.options.shouldPlayback(opts)) return new SnapshotNotFoundError(`${message} (shouldPlayback returned false)`)
  const closest = recorder.closestSnapshot(opts)
  if (closest === undefined) {
    if (recorder.size() === 0) {
      message += recorder.missingFile === null ? ' (no snapshots are recorded)' : ` (no snapshots are recorded: ${recorder.missingFile} does not exist)`
    }
    return new SnapshotNotFoundError(message)
  }
  message += `\n  closest recorded request: ${closest.request.method} ${recorder.shownUrl(closest.request.url)}\n  differs in: ${closest.differences.join('; ')}`
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

function staleMessage (recorder: SnapshotRecorder, found: SnapshotMatch): string {
  const days = ((Date.now() - Date.parse(found.timestamp)) / 86_400_000).toFixed(1)
  return `snapshot of ${found.request.method} ${recorder.shownUrl(found.request.url)} was recorded ${found.timestamp} (${days} days ago), longer ago than maxAge (${recorder.options.maxAge} ms); record it again (mode 'update')`
}

function replay (recorder: SnapshotRecorder, found: SnapshotMatch, handler: DispatchHandler): boolean {
  const speed = recorder.options.replaySpeed
  log('replaying %s %s (call %d of %d recorded)', found.request.method, recorder.shownUrl(found.request.url), found.callCount, found.responses.length)
  new ResponsePlayer(handler).run(() => toMockResponse(found.response, speed), headDelay(found.response, speed))
  return true
}

function decideOrThrow (recorder: SnapshotRecorder, dispatch: Dispatch, opts: DispatchOptions, handler: DispatchHandler): boolean {
  const mode = recorder.options.mode
  if (mode === 'record') return dispatch(opts, new RecordingHandler(opts, handler, recorder))
  if (!recorder.loaded) {
    recorder.ensureLoaded().then(() => decide(recorder, dispatch, opts, handler), (err: Error) => fail(handler, err))
    return true
  }
  const found = recorder.findSnapshot(opts)
  if (found !== undefined && found.stale) {
    if (mode === 'update') {
      log('stale snapshot, recording again %s %s', found.request.method, recorder.shownUrl(found.request.url))
      return dispatch(opts, new RecordingHandler(opts, handler, recorder, found.hash))
    }
    if (recorder.options.onStale === 'fail') return fail(handler, new SnapshotStaleError(staleMessage(recorder, found), found.timestamp))
    if (recorder.firstStaleReplay(found.hash)) {
      process.emitWarning(staleMessage(recorder, found), { type: 'SnapshotStaleWarning', code: 'CONDUIT_SNAPSHOT_STALE' })
    }
  }
  if (found !== undefined) return replay(recorder, found, handler)
  if (mode === 'update') {
    log('no snapshot, recording %s %s', opts.method, recorder.shownUrl(opts))
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
  if (excluded && recorder.options.mode !== 'lockdown') {
    log('excluded, passing through: %s', recorder.shownUrl(opts))
    return dispatch(opts, handler)
  }
  if (isBufferedBody(opts.body)) return decide(recorder, dispatch, opts, handler)
  collectBody(opts.body).then(
    (body) => {
      const buffered = copyOptions(opts)
      buffered.body = body
      return decide(recorder, dispatch, buffered, handler)
    },
    (err: Error) => fail(handler, err)
  )
  return true
}
