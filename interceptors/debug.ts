/**
 * `interceptors.debug()`: the per-request lines of the `NODE_DEBUG=conduit` log, for one
 * explicitly composed dispatcher and without the environment variable.
 * @module
 */

import { DecoratorHandler, CORE_NAMESPACE, lines, requestUrl, failOption, showOrigin } from '../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders, Interceptor } from '../src/handler.js'

/** Options of {@link debug}. */
export interface DebugInterceptorOptions {
  /**
   * Receives each line (without a trailing newline).
   * @defaultValue writes `CONDUIT <pid>: <line>` to stderr, the shape of the `NODE_DEBUG` log
   */
  logger?: ((line: string) => void) | undefined
}

function stderrLogger (line: string): void {
  process.stderr.write(`${CORE_NAMESPACE.toUpperCase()} ${process.pid}: ${line}\n`)
}

/** Logs one request's progress; everything is forwarded unchanged. */
class DebugHandler extends DecoratorHandler {
  readonly #log: (line: string) => void
  readonly #method: string
  readonly #url: string

  constructor (handler: DispatchHandler, log: (line: string) => void, method: string, url: string) {
    super(handler)
    this.#log = log
    this.#method = method
    this.#url = url
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    this.#log(lines.received(this.#method, this.#url, statusCode))
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.#log(lines.trailers(this.#method, this.#url))
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    this.#log(lines.error(this.#method, this.#url, error))
    super.onResponseError(controller, error)
  }
}

/**
 * Logs `sending request to`, `received response to`, `trailers received from` (and errors)
 * for every request through the composed dispatcher.
 * @example
 * const agent = new Agent().compose(interceptors.debug({ logger: (line) => console.log(line) }))
 */
export function debug (options: DebugInterceptorOptions = {}): Interceptor {
  if (options === null || typeof options !== 'object') {
    failOption('debug()', 'options', 'an object', options)
  }
  const logger = options.logger ?? stderrLogger
  if (typeof logger !== 'function') {
    failOption('debug()', 'logger', 'a function', logger)
  }
  return (dispatch) => (opts, handler) => {
    // An origin given as http://user:pass@host is logged without its credentials.
    const origin = showOrigin(opts.origin)
    const method = opts.method ?? 'GET'
    const url = requestUrl({ origin, path: opts.path })
    logger(lines.sending(method, url))
    return dispatch(opts, new DebugHandler(handler, logger, method, url))
  }
}
