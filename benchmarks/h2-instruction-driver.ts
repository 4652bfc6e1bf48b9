/**
 * A bounded HTTP/2 client run for instruction counting (`valgrind --tool=callgrind`) rather than
 * timing: one Client with allowH2 (one session), a fixed number of GETs with 50 streams in flight
 * against an h2 benchmark origin already running (`clients/h2-server.js`), then exit. A full
 * collection frames the round, so the garbage it made counts. Comparing a run of N requests with
 * one of M gives the instructions of M − N requests in the steady state.
 *
 * Usage: node --expose-gc h2-instruction-driver.js <conduit|undici> <path> <requests> <origin>
 * @module
 */

import { open, one } from './clients/h2-client.js'
import { keepInFlight } from './clients/in-flight.js'

const STREAMS = 50

const [impl = 'conduit', path = '/1k', requests = '2000', origin = ''] = process.argv.slice(2)
const total = Number(requests)
if (!Number.isInteger(total) || total < 0 || total > 100_000) throw new TypeError(`requests must be an integer from 0 to 100000, got ${requests}`)
const client = open(impl, origin)
const collectGarbage: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {})
collectGarbage()
if (total > 0) await keepInFlight(total, Math.min(STREAMS, total), () => one(client, path))
collectGarbage()
await client.close()
