/**
 * Every benchmark suite `npm run bench` knows, in one table: its name, the program it runs, what
 * it measures, and the tiny bounded arguments of a smoke run (`npm run bench -- --smoke NAME`),
 * which checks that a suite still runs without taking a measurement. A suite is a program at the
 * root of `benchmarks/`; the processes it starts live in `clients/`, `origins/` and `drivers/`.
 * @module
 */

/** One registered suite. */
export interface Suite {
  /** What `npm run bench -- NAME` selects it by. */
  name: string
  /**
   * The program, relative to `benchmarks/` and compiled (`.js`); absent for `transport`, which
   * `run.ts` drives in-process because its options and charts are its own.
   */
  file?: string
  /** One line: what the suite measures. */
  measures: string
  /** Arguments of a smoke run: small counts that keep it to seconds. */
  smokeArgs: readonly string[]
  /** Environment of a smoke run, for suites whose counts are set by variables. */
  smokeEnv?: Readonly<Record<string, string>>
}

/** The suites, in the order `npm run bench -- all` runs them. */
export const SUITES: readonly Suite[] = [
  { name: 'transport', measures: 'HTTP/1.1 request(), dispatch(), fetch() and composed interceptors against undici and node:http, CPU per request and req/s', smokeArgs: ['--scale=0.005', '--rounds=1'] },
  { name: 'h2', file: 'h2.js', measures: 'HTTP/2 Client against undici\'s and a bare node:http2 session, 50 streams on one session', smokeArgs: [], smokeEnv: { BENCH_H2_ROUNDS: '1', BENCH_H2_SCALE: '0.01' } },
  { name: 'websocket', file: 'websocket.js', measures: 'WebSocket echo round trips and CPU per message against undici and ws', smokeArgs: [], smokeEnv: { BENCH_WS_ROUNDS: '1', BENCH_WS_MESSAGES: '50' } },
  { name: 'resilience', file: 'resilience.js', measures: 'what deadline(), circuitBreaker(), rateLimit(), retry() with a budget and hedge() cost on GET 1 KiB when they let requests through', smokeArgs: ['--requests=200', '--rounds=1'] },
  { name: 'balanced', file: 'balanced.js', measures: 'BalancedPool over three origins against undici\'s', smokeArgs: ['--requests=200', '--rounds=1'] },
  { name: 'scale', file: 'scale.js', measures: 'memory and CPU per idle connection, queued request, origin and HTTP/2 stream against undici', smokeArgs: ['--repeats=1', '--connections=20', '--queued=50', '--origins=50', '--streams=20'] },
  { name: 'fetch', file: 'fetch.js', measures: 'fetch() against undici\'s and the runtime\'s global fetch', smokeArgs: [], smokeEnv: { FETCH_BENCH_REQUESTS: '200' } },
  { name: 'fetch-large', file: 'fetch-large.js', measures: 'large bodies through fetch(): arrayBuffer() against request(), peak memory of large uploads', smokeArgs: ['1', '1', '1'] },
  { name: 'gzip-bomb', file: 'gzip-bomb.js', measures: 'time and peak memory of a gzip bomb with and without maxResponseSize', smokeArgs: [] },
  { name: 'headers-linearity', file: 'headers-linearity.js', measures: 'header value trimming stays linear in the value\'s length', smokeArgs: ['1', '4'] },
  { name: 'hpack', file: 'hpack.js', measures: 'HPACK encode and decode per header block, warm and first block', smokeArgs: ['100'] },
  { name: 'cache-interceptor', file: 'cache-interceptor.js', measures: 'what a cache hit saves against a miss, conduit\'s cache interceptor and undici\'s', smokeArgs: ['100', '1'] },
  { name: 'cache-store-ops', file: 'cache-store-ops.js', measures: 'get and set per second of the memory and SQLite stores, with undici\'s', smokeArgs: ['200'] },
  { name: 'cache-store-hits', file: 'cache-store-hits.js', measures: 'cost of one hit in each shipped store (memory, SQLite, Redis with and without its memory tier)', smokeArgs: ['1024', '200'] },
  { name: 'cache-api-put', file: 'cache-api-put.js', measures: 'cache.put time as a Cache API cache grows, conduit against undici', smokeArgs: ['50'] },
  { name: 'sqlite-store-contention', file: 'sqlite-store-contention.js', measures: 'how long a SQLite store write blocks the event loop while other processes write the same file', smokeArgs: ['2', '5', '1024'] },
  { name: 'cluster', file: 'cluster.js', measures: 'Redis store hits on a standalone server against one- and three-primary clusters', smokeArgs: ['--hits=100', '--clients=1'] }
]

/** The suites `npm run bench` runs when no name is given. */
export const DEFAULT_SUITES: readonly string[] = ['transport', 'h2']

/**
 * The suites a name selects: `all`, or every suite whose name starts with it (`cache` selects
 * every `cache-*` suite, `fetch` both fetch suites). Empty when nothing matches.
 */
export function selectSuites (name: string): Suite[] {
  return SUITES.filter((suite) => name === 'all' || suite.name.startsWith(name))
}
