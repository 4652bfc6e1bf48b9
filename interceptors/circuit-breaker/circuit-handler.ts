/**
 * `CircuitHandler`: watches one request that a circuit let through and tells the circuit how it
 * went: a failure status when the head arrives, a success when the response ends, an error by
 * what the options count.
 * @module
 */

import type { Duplex } from 'node:stream'
import { DecoratorHandler, LIBRARY_ERROR_CODES, fromUndiciCode } from '../../src/handler.js'
import type { DispatchController, DispatchHandler, IncomingHeaders } from '../../src/handler.js'
import type { Circuit } from './circuit.js'
import type { ResolvedCircuitBreakerOptions } from './options.js'

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  LIBRARY_ERROR_CODES.ConnectTimeoutError,
  LIBRARY_ERROR_CODES.HeadersTimeoutError,
  LIBRARY_ERROR_CODES.BodyTimeoutError,
  LIBRARY_ERROR_CODES.DeadlineExceededError
])

// Neither the caller's abort nor another breaker's refusal says anything about this upstream.
const NO_VERDICT_CODES: ReadonlySet<string> = new Set([LIBRARY_ERROR_CODES.RequestAbortedError, LIBRARY_ERROR_CODES.CircuitOpenError])

/** `status 503`, or the error's code (its name when it has none), for reasons in log lines. */
function codeOf (err: Error): string | undefined {
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' ? fromUndiciCode(code) : undefined
}

/** Whether `err` counts as a failure of the upstream under `options`; undefined when it says nothing about it. */
export function countsAsFailure (err: Error, options: ResolvedCircuitBreakerOptions): boolean | undefined {
  const code = codeOf(err)
  // A DOMException is an abort signal's reason (AbortError, TimeoutError): the caller gave up.
  if (err instanceof DOMException || (code !== undefined && NO_VERDICT_CODES.has(code))) return undefined
  if (code !== undefined && TIMEOUT_CODES.has(code)) return options.timeouts
  if (options.errorCodes === undefined) return true
  return code !== undefined && options.errorCodes.has(code)
}

/** Reports one request's outcome to its circuit, once. */
export class CircuitHandler extends DecoratorHandler {
  readonly #circuit: Circuit
  readonly #probe: boolean
  readonly #options: ResolvedCircuitBreakerOptions
  #reported = false

  constructor (handler: DispatchHandler, circuit: Circuit, probe: boolean, options: ResolvedCircuitBreakerOptions) {
    super(handler)
    this.#circuit = circuit
    this.#probe = probe
    this.#options = options
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    if (!this.#reported && this.#options.statusCodes.has(statusCode)) {
      this.#reported = true
      this.#circuit.failed(this.#probe, Date.now(), `status ${statusCode}`)
    }
    super.onResponseStart(controller, statusCode, headers, statusMessage)
  }

  override onRequestUpgrade (controller: DispatchController, statusCode: number, headers: IncomingHeaders, socket: Duplex): void {
    this.#succeeded()
    super.onRequestUpgrade(controller, statusCode, headers, socket)
  }

  override onResponseEnd (controller: DispatchController, trailers: IncomingHeaders): void {
    this.#succeeded()
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError (controller: DispatchController, error: Error): void {
    if (!this.#reported) {
      this.#reported = true
      const failure = countsAsFailure(error, this.#options)
      if (failure === true) this.#circuit.failed(this.#probe, Date.now(), codeOf(error) ?? error.name)
      else if (failure === false) this.#circuit.succeeded(this.#probe, Date.now())
      else this.#circuit.released(this.#probe)
    }
    super.onResponseError(controller, error)
  }

  #succeeded (): void {
    if (this.#reported) return
    this.#reported = true
    this.#circuit.succeeded(this.#probe, Date.now())
  }
}
