/**
 * A small harness for differential tests of the interceptors: the same request through a
 * conduit dispatcher and an undici one, each composed with its own library's interceptor,
 * reduced to what a caller observes (status, chosen headers, body, or the error's kind).
 */

import { undici } from '../helpers/undici-reference.js'
import type { UndiciTypes } from '../helpers/undici-reference.js'
import { Agent } from '../../src/index.js'
import type { Interceptor } from '../../src/index.js'

/** What a caller of `dispatcher.request()` sees. */
export interface Outcome {
  status?: number
  headers?: Record<string, unknown>
  body?: string
  /** For a failure: the error code with undici's `UND_` prefix read as conduit's `LIB_`. */
  error?: string
  /** A failure's `statusCode` and `body`, when it has them (ResponseError). */
  errorStatus?: unknown
  errorBody?: unknown
}

/** Anything with undici's `request()` shape. */
interface Requester {
  request (opts: Record<string, unknown>): Promise<{ statusCode: number, headers: Record<string, unknown>, body: { text (): Promise<string> } }>
}

/** Sends `opts` through `dispatcher`; `headerNames` picks the response headers to compare. */
export async function observe (dispatcher: Requester, opts: Record<string, unknown>, headerNames: string[] = []): Promise<Outcome> {
  try {
    const { statusCode, headers, body } = await dispatcher.request({ method: 'GET', path: '/', ...opts })
    const picked: Record<string, unknown> = {}
    for (const name of headerNames) picked[name] = headers[name]
    return { status: statusCode, headers: picked, body: await body.text() }
  } catch (err) {
    const e = err as { code?: string, statusCode?: unknown, body?: unknown }
    const outcome: Outcome = { error: (e.code ?? 'none').replace(/^UND_/, 'LIB_') }
    if (e.statusCode !== undefined) outcome.errorStatus = e.statusCode
    if (e.body !== undefined) outcome.errorBody = e.body
    return outcome
  }
}

/** A conduit Agent and an undici Agent, each composed with the interceptors given for it. */
export interface Pair {
  conduit: Requester
  undici: Requester
  close (): Promise<void>
}

/** Builds the two dispatchers; the caller closes them with `close()`. */
export function pair (ours: Interceptor[], theirs: UndiciTypes.Dispatcher.DispatcherComposeInterceptor[]): Pair {
  const conduitAgent = new Agent()
  const undiciAgent = new undici.Agent()
  return {
    conduit: conduitAgent.compose(ours) as unknown as Requester,
    undici: undiciAgent.compose(theirs) as unknown as Requester,
    close: async () => { await conduitAgent.close(); await undiciAgent.close() }
  }
}

/** Runs the same request through both and returns the two outcomes, conduit's first. */
export async function compare (dispatchers: Pair, opts: Record<string, unknown>, headerNames: string[] = []): Promise<[Outcome, Outcome]> {
  return [await observe(dispatchers.conduit, opts, headerNames), await observe(dispatchers.undici, opts, headerNames)]
}

export { undici }
