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
}

const KiB = 1024
const MiB = 1024 * KiB

/** A small JSON answer, the size of a typical API response. */
export const SMALL_BODY = Buffer.from(JSON.stringify({ ok: true, message: 'hello from the transport benchmark', items: [1, 2, 3, 4, 5, 6, 7, 8] }))

/** All scenarios, in the order they run and print. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'small', title: `GET, ${SMALL_BODY.length} B JSON response`, method: 'GET', path: '/small', requestBytes: 0, responseBytes: SMALL_BODY.length, requests: 20000, concurrency: 50 },
  { name: 'large', title: 'GET, 1 MiB response', method: 'GET', path: '/large', requestBytes: 0, responseBytes: MiB, requests: 400, concurrency: 50 },
  { name: 'post', title: 'POST, 64 KiB request body, small response', method: 'POST', path: '/upload', requestBytes: 64 * KiB, responseBytes: SMALL_BODY.length, requests: 4000, concurrency: 50 }
]

/** Finds a scenario by name; throws a TypeError naming the unknown one. */
export function scenarioByName (name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name)
  if (scenario === undefined) {
    throw new TypeError(`unknown scenario ${JSON.stringify(name)}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`)
  }
  return scenario
}
