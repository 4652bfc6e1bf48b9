/**
 * What the conduit and undici client processes share. Both libraries' Agents have the same
 * `dispatch`/`request` shape and both have a `fetch`, so the process arguments, the request
 * options of a scenario and every measured mode are defined once here, and the two are measured
 * doing exactly the same.
 * @module
 */

import type { Readable } from 'node:stream'
import { DispatchSink } from './dispatch-sink.js'
import { MEMORY_ORIGIN } from '../origins/memory-socket.js'
import { drainBody, iterateBody } from './measure.js'
import type { BenchClient, RequestDone } from './measure.js'
import { SMALL_BODY } from '../transport-scenarios.js'
import type { Scenario } from '../transport-scenarios.js'

/** How a client process sends requests and reads bodies. */
export const CLIENT_MODES = ['request', 'request-timings', 'request-iter', 'request-text', 'request-json', 'dispatch', 'fetch', 'composed'] as const

/** One of {@link CLIENT_MODES}. */
export type ClientMode = typeof CLIENT_MODES[number]

/** The arguments the transport runner starts an agent client with. */
export interface AgentClientArgs {
  /**
   * `request` (`request()`, body read with 'data' events), `request-iter` (`request()`, body
   * read with `for await`), `request-text` and `request-json` (the body's `text()` and `json()`), `dispatch` (a plain handler), `fetch` (`fetch()`, `arrayBuffer()`) or
   * `composed` (`request()` through the library's redirect and decompress interceptors).
   */
  mode: ClientMode
  /** In-memory sockets instead of the server: only the library's own work is measured. */
  memory: boolean
  origin: string
  connections: number
}

/** Reads `<mode> <origin|memory> <connections>` from the command line. */
export function readAgentClientArgs (argv: readonly string[] = process.argv.slice(2)): AgentClientArgs {
  const [mode = 'request', target, connections] = argv
  if (!(CLIENT_MODES as readonly string[]).includes(mode)) throw new TypeError(`unknown client mode ${JSON.stringify(mode)}; known: ${CLIENT_MODES.join(', ')}`)
  const memory = target === 'memory'
  return { mode: mode as ClientMode, memory, origin: memory ? MEMORY_ORIGIN : target!, connections: Number(connections) }
}

/**
 * The request options of one scenario request (a type alias, not an interface, so that it fits
 * dispatch option types with an index signature).
 */
export type BenchRequestOptions = {
  origin: string
  path: string
  method: string
  body?: Buffer
}

/**
 * Redirects followed by the `composed` clients: enough that the redirect handler is on the path
 * of every request (undici's passes requests through untouched without a limit).
 */
export const COMPOSED_MAX_REDIRECTIONS = 3

/** The parts of a dispatcher the benchmark drives through `request()`. */
export interface BenchRequester {
  request (opts: BenchRequestOptions): Promise<{ statusCode: number, body: BenchBody }>
}

/** A response body as both libraries' `request()` give it: a Readable with one-shot consumers. */
export interface BenchBody extends Readable {
  text (): Promise<string>
  json (): Promise<unknown>
}

/** The parts of an Agent the benchmark drives. */
export interface BenchAgent extends BenchRequester {
  dispatch (opts: BenchRequestOptions, handler: DispatchSink): boolean
  close (): Promise<void>
}

/** A library's `fetch`, bound to the benchmark's agent. */
export type BenchFetch = (url: string, init: { method: string, body?: Buffer }) => Promise<{ status: number, arrayBuffer (): Promise<ArrayBuffer> }>

/** What a library hands the benchmark: its agent, the same agent behind a cache, and its fetch. */
export interface BenchLibrary {
  agent: BenchAgent
  /** `agent` composed with the library's cache interceptor and an in-memory store. */
  cached: BenchRequester
  /** `agent` composed with the library's `redirect()` and `decompress()` interceptors. */
  composed: BenchRequester
  fetch: BenchFetch
}

/** The round loop's client for `library`, in the mode the runner asked for. */
export function agentClient (library: BenchLibrary, args: AgentClientArgs): BenchClient {
  const { agent } = library
  const origin = args.origin
  // One request body per size, reused: allocating it would be measured as the library's work.
  let payload: Buffer | null = null
  const options = (scenario: Scenario): BenchRequestOptions => {
    if (scenario.requestBytes === 0) return { origin, path: scenario.path, method: scenario.method }
    if (payload?.length !== scenario.requestBytes) payload = Buffer.alloc(scenario.requestBytes, 'u')
    return { origin, path: scenario.path, method: scenario.method, body: payload }
  }
  const close = (): Promise<void> => agent.close()
  switch (args.mode) {
    case 'dispatch':
      return { send: (scenario, done) => { agent.dispatch(options(scenario), new DispatchSink(done)) }, close }
    case 'fetch':
      return {
        send: (scenario, done) => {
          const { path, ...init } = options(scenario)
          library.fetch(origin + path, init).then(async (res) => {
            if (res.status !== 200) throw new Error(`unexpected status ${res.status}`)
            done(null, (await res.arrayBuffer()).byteLength)
          }).catch((err: Error) => done(err, 0))
        },
        close
      }
    case 'request-timings':
      // request() with the caller reading the phases once the body ended (conduit only): what timings cost when used.
      return {
        send: (scenario, done) => {
          agent.request(options(scenario)).then((res) => {
            readResponse(res, drainBody, (err, bytes) => {
              const total = (res as { timings?: { phases: { total: number } } | null }).timings?.phases.total
              done(err ?? (typeof total === 'number' ? null : new Error('no timings on the response')), bytes)
            })
          }, (err: Error) => done(err, 0))
        },
        close
      }
    case 'composed': {
      const composed = library.composed
      return {
        send: (scenario, done) => {
          composed.request(options(scenario)).then((res) => readResponse(res, drainBody, done), (err: Error) => done(err, 0))
        },
        close
      }
    }
    default: {
      const read = args.mode === 'request-iter' ? iterateBody : args.mode === 'request-text' ? readText : args.mode === 'request-json' ? readJson : drainBody
      const through = (requester: BenchRequester): BenchClient['send'] => (scenario, done) => {
        requester.request(options(scenario)).then((res) => readResponse(res, read, done), (err: Error) => done(err, 0))
      }
      return { send: through(agent), close, cached: { send: through(library.cached), close } }
    }
  }
}

/** Reads the body with `text()`; the benchmark's bodies are ASCII, so characters are bytes. */
function readText (body: BenchBody, done: RequestDone): void {
  body.text().then((text) => done(null, text.length), (err: Error) => done(err, 0))
}

/** Reads the body with `json()` (JSON scenarios only); a parsed object counts as the whole body. */
function readJson (body: BenchBody, done: RequestDone): void {
  body.json().then((value) => {
    if (typeof value !== 'object' || value === null) throw new Error(`json(): expected an object, got ${typeof value}`)
    done(null, SMALL_BODY.length)
  }).catch((err: Error) => done(err, 0))
}

function readResponse (res: { statusCode: number, body: BenchBody }, read: (body: BenchBody, done: RequestDone) => void, done: RequestDone): void {
  if (res.statusCode !== 200) {
    res.body.resume()
    done(new Error(`unexpected status ${res.statusCode}`), 0)
    return
  }
  read(res.body, done)
}
