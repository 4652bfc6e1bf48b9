/**
 * A bounded HTTP/2 client run for instruction counting (`valgrind --tool=callgrind`) rather than
 * timing: one Client with allowH2 (one session), a fixed number of GETs with `streams` in flight
 * (50 by default; 1000 for the per-stream cost of the scale row) against an h2 benchmark origin
 * already running (`origins/h2-origin.js`), then exit. A young-generation collection frames the
 * round (see `collectYoungGarbage`), so the garbage it made counts. Comparing a run of N requests with one of M gives the
 * instructions of M − N requests in the steady state. With a `warmup` count it first runs that
 * many requests, then says `ready` on stdout and waits for a line on stdin before the counted
 * round, and says `done` after it (and waits for stdin to end), as `instruction-driver.ts` does,
 * so that `instruction-steady.ts` (mode `h2`) counts only the round.
 *
 * Usage: node --expose-gc h2-instruction-driver.js <conduit|undici> <path> <requests> <origin> [warmup] [streams]
 * @module
 */

import { open, one } from '../clients/h2-client.js'
import { keepInFlight } from '../clients/in-flight.js'
import { collectYoungGarbage } from '../clients/measure.js'
import { awaitParentLine, tellParent } from '../clients/parent-handshake.js'

/** The most streams the h2 benchmark origin allows on one session. */
const MAX_STREAMS = 1000

function count (name: string, value: string, max: number): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > max) throw new TypeError(`${name} must be an integer from 0 to ${max}, got ${value}`)
  return n
}

const [impl = 'conduit', path = '/1k', requests = '2000', origin = '', warmupArg = '0', streamsArg = '50'] = process.argv.slice(2)
const total = count('requests', requests, 100_000)
const warmup = count('warmup', warmupArg, 100_000)
const streams = Math.max(1, count('streams', streamsArg, MAX_STREAMS))
const client = open(impl, origin, streams)
const handshake = warmup > 0
if (warmup > 0) await keepInFlight(warmup, Math.min(streams, warmup), () => one(client, path))
collectYoungGarbage()
if (handshake) {
  tellParent('ready')
  awaitParentLine()
}
if (total > 0) await keepInFlight(total, Math.min(streams, total), () => one(client, path))
collectYoungGarbage()
if (handshake) {
  tellParent('done')
  awaitParentLine()
}
await client.close()
