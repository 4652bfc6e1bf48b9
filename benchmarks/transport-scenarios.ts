/**
 * The transport benchmark's scenarios: one definition read by the server (what to answer), the
 * client processes (what to send) and the runner (how many requests, how to label them).
 * @module
 */

/** One kind of request measured by the transport benchmark. */
export interface Scenario {
  /** Short name, used on the command line (`--only small,large`). */
  name: string
  /** Heading of the scenario's table. */
  title: string
  /** Short label of the scenario in the headline rows, e.g. `GET 1 KiB`. */
  label: string
  /** Request method. */
  method: 'GET' | 'POST'
  /** Request path; the benchmark server answers by path. */
  path: string
  /** Bytes of the request body (0: none). */
  requestBytes: number
  /** Bytes of the response body the server sends. */
  responseBytes: number
  /** Requests per measured round at `--scale 1`. */
  requests: number
  /** Requests in flight at once; every client opens as many connections. */
  concurrency: number
  /**
   * The response is cacheable, and clients that can put a cache in front of their agent run
   * each round twice: once through the plain agent, once through the cache (hits after the first).
   */
  cache?: boolean
}

const KiB = 1024
const MiB = 1024 * KiB

/** A JSON answer of exactly 1 KiB, the size of a typical API response. */
export const SMALL_BODY = jsonOfSize(KiB)

/** Headers that make the cache scenario's response fresh for an hour in a shared cache. */
export const CACHEABLE_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'public, max-age=3600' }

/**
 * All scenarios, in the order every client process runs them: a process that has just run
 * thousands of small requests behaves differently on large bodies than a fresh one, and this is
 * the order users see.
 */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'small', title: 'GET, 1 KiB JSON response', label: 'GET 1 KiB', method: 'GET', path: '/small', requestBytes: 0, responseBytes: SMALL_BODY.length, requests: 20000, concurrency: 50 },
  { name: 'medium', title: 'GET, 64 KiB response', label: 'GET 64 KiB', method: 'GET', path: '/medium', requestBytes: 0, responseBytes: 64 * KiB, requests: 4000, concurrency: 50 },
  { name: 'large', title: 'GET, 1 MiB response', label: 'GET 1 MiB', method: 'GET', path: '/large', requestBytes: 0, responseBytes: MiB, requests: 400, concurrency: 50 },
  { name: 'post', title: 'POST, 64 KiB request body, 1 KiB response', label: 'POST 64 KiB', method: 'POST', path: '/upload', requestBytes: 64 * KiB, responseBytes: SMALL_BODY.length, requests: 4000, concurrency: 50 },
  { name: 'cache', title: 'GET, 1 KiB cacheable response, without and with a cache', label: 'GET 1 KiB cacheable', method: 'GET', path: '/cacheable', requestBytes: 0, responseBytes: SMALL_BODY.length, requests: 20000, concurrency: 50, cache: true }
]

/** The body the server answers `scenario` with (the same bytes in every process). */
export function responseBody (scenario: Scenario): Buffer {
  return scenario.responseBytes === SMALL_BODY.length ? SMALL_BODY : Buffer.alloc(scenario.responseBytes, 'x')
}

/** Response headers of `scenario` besides content-length. */
export function responseHeaders (scenario: Scenario): Record<string, string> {
  return scenario.cache === true ? { 'content-type': 'application/json', ...CACHEABLE_HEADERS } : { 'content-type': 'application/json' }
}

/** Finds a scenario by name; throws a TypeError naming the unknown one. */
export function scenarioByName (name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name)
  if (scenario === undefined) {
    throw new TypeError(`unknown scenario ${JSON.stringify(name)}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`)
  }
  return scenario
}

function jsonOfSize (bytes: number): Buffer {
  const base = JSON.stringify({ ok: true, message: 'hello from the transport benchmark', items: [1, 2, 3, 4, 5, 6, 7, 8], pad: '' })
  return Buffer.from(base.replace('"pad":""', `"pad":"${'p'.repeat(bytes - base.length)}"`))
}
