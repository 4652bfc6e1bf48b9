/**
 * What the handlers of `request()`, `stream()` and `pipeline()` share: their signal (an abort
 * before the dispatch started is applied once it does), the per-dispatch context, the refusal
 * of protocol switches, and informational responses handed to `onInfo`.
 * @module
 */

import type { Duplex } from 'node:stream'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../contracts/dispatch-contract.js'
import { InvalidArgumentError } from '../errors.js'
import { abortReason, watchSignal } from './abort-signal.js'
import { checkApiOptions } from './api-options.js'
import type { ApiOptions } from './api-options.js'
import { DualShapeHandler } from '../handlers/dual-shape-handler.js'
import { checkProgressOptions, chunkByteLength, downloadTotal, TransferProgress, uploadTotal } from './transfer-progress.js'
import type { TransferProgressOptions } from './transfer-progress.js'

/** Options every request-level handler reads. */
export interface ApiHandlerOptions extends ApiOptions, TransferProgressOptions {
  /** The request body, measured for upload progress. */
  body?: unknown
  /** The request headers, read for a declared `content-length` when the body's size is unknown. */
  headers?: unknown
  /** Handed back to the caller. */
  opaque?: unknown
  /** Called for each informational (1xx) response. */
  onInfo?: ((info: { statusCode: number, headers: IncomingHeaders }) => void) | undefined
}

/** Base of the request-level handlers; subclasses handle the final response. */
export abstract class ApiHandler extends DualShapeHandler implements DispatchHandler {
  /** The caller's options. */
  protected readonly opts: ApiHandlerOptions
  /** The dispatch's controller, once it started. */
  protected controller: DispatchController | null = null
  /** Per-dispatch context from the dispatcher. */
  protected context: unknown = undefined
  // Plain (TypeScript-private) fields rather than #private ones, here and in the subclasses: one
  // handler is made per request, and until V8's top tier takes the constructor over, each
  // #field definition is a generic keyed-define call while a named field is a plain store.
  private readonly who: string
  private abortedEarly: Error | null = null
  private readonly stopWatching: () => void
  /** Upload and download progress; null (and never looked at again) unless the caller asked. */
  private readonly upload: TransferProgress | null = null
  private readonly download: TransferProgress | null = null

  /**
   * @param who - names the API in error messages, e.g. `stream()`
   * @throws InvalidArgumentError for a bad signal, `onInfo` or method
   */
  constructor (who: string, opts: ApiHandlerOptions) {
    super()
    checkApiOptions(who, opts)
    this.who = who
    this.opts = opts
    if (opts.onUploadProgress != null || opts.onDownloadProgress != null) {
      checkProgressOptions(who, opts)
      if (opts.onUploadProgress != null) this.upload = new TransferProgress(opts.onUploadProgress, uploadTotal(opts.body, opts.headers))
      if (opts.onDownloadProgress != null) this.download = new TransferProgress(opts.onDownloadProgress)
    }
    const signal = opts.signal
    if (signal == null) {
      // Most requests have no signal: no listener closure for them.
      this.stopWatching = noop
    } else if (signal.aborted === true) {
      // As undici 8 does, the request fails with the signal's reason (its own abort error when the signal gives none).
      this.abortedEarly = abortReason(signal)
      this.stopWatching = noop
    } else {
      this.stopWatching = watchSignal(signal, (reason) => this.onSignalAbort(reason))
    }
  }

  /** The `opaque` option as handed back to the caller: null when none was given, as with undici. */
  protected get opaque (): unknown {
    return this.opts.opaque ?? null
  }

  /** The signal fired: cancels the dispatch (or remembers to, when it has not started yet). */
  protected onSignalAbort (reason: Error): void {
    if (this.controller !== null) this.controller.abort(reason)
    else this.abortedEarly = reason
  }

  /** Stops listening to the signal (the request is over). */
  protected stopWatchingSignal (): void {
    this.stopWatching()
  }

  onRequestStart (controller: DispatchController, context: unknown): void {
    this.controller = controller
    this.context = context
    if (this.abortedEarly !== null) controller.abort(this.abortedEarly)
  }

  onBodySent (chunk: Uint8Array | string): void {
    const upload = this.upload
    if (upload === null) return
    try {
      upload.add(chunkByteLength(chunk))
    } catch (err) {
      this.controller?.abort(err as Error)
    }
  }

  onRequestSent (): void {
    const upload = this.upload
    if (upload === null) return
    try {
      upload.finish()
    } catch (err) {
      this.controller?.abort(err as Error)
    }
  }

  /** The final response head arrived: the download's total is its `content-length`, when it has a body. */
  protected startDownload (statusCode: number, headers: IncomingHeaders): void {
    const download = this.download
    if (download === null) return
    // RFC 9110 §6.4.1: these responses have no content.
    const hasBody = (this.opts as { method?: string }).method !== 'HEAD' && statusCode !== 204 && statusCode !== 304
    download.start(downloadTotal(hasBody, headers['content-length']))
  }

  /** Counts a body chunk for the download's progress; false when the caller's callback threw (the request was aborted). */
  protected countDownload (controller: DispatchController, bytes: number): boolean {
    const download = this.download
    if (download === null) return true
    try {
      download.add(bytes)
      return true
    } catch (err) {
      controller.abort(err as Error)
      return false
    }
  }

  /** The body ended: the download's last report; false when the caller's callback threw (the request was aborted). */
  protected finishDownload (controller: DispatchController): boolean {
    const download = this.download
    if (download === null) return true
    try {
      download.finish()
      return true
    } catch (err) {
      controller.abort(err as Error)
      return false
    }
  }

  onRequestUpgrade (controller: DispatchController, statusCode: number, _headers: IncomingHeaders, socket: Duplex): void {
    socket.destroy()
    controller.abort(new InvalidArgumentError(`${this.who}: got an upgrade response (${statusCode}); use upgrade() for the "upgrade" option`))
  }

  onResponseInformation (controller: DispatchController, statusCode: number, headers: IncomingHeaders): void {
    const onInfo = this.opts.onInfo
    if (onInfo == null) return
    try {
      onInfo({ statusCode, headers })
    } catch (err) {
      // As undici: the caller's onInfo runs inside its own request, so what it throws fails that request.
      controller.abort(err as Error)
    }
  }
}

function noop (): void {}
