/**
 * A bounded WebSocket echo run for instruction counting (`valgrind --tool=callgrind`) and other
 * load-independent measures (syscall counts, heap statistics) rather than timing: opens
 * `connections` WebSockets with one library against a running echo server
 * (`origins/websocket-origin.ts`), runs `roundTrips` echo round trips in all (spread evenly over the
 * connections, one message in flight on each), then exits. A young-generation collection frames the
 * round (see `collectYoungGarbage`), so the garbage it made counts. With a `warmup` count it first runs that many round trips, says
 * `ready` on stdout and waits for a line on stdin before the counted round, and says `done` after
 * it (and waits for stdin to end), so that `instruction-steady.ts` (mode `websocket`) counts only
 * the round.
 *
 * Usage: node --expose-gc websocket-instruction-driver.js <conduit|undici|ws> <url> <size> <connections> <roundTrips> [warmup]
 * @module
 */

import { Agent } from '../../src/index.js'
import { echoRoundTrips, openEchoSocket } from '../clients/websocket-echo.js'
import type { EchoSocket } from '../clients/websocket-echo.js'
import { collectYoungGarbage } from '../clients/measure.js'
import { awaitParentLine, tellParent } from '../clients/parent-handshake.js'

function count (name: string, value: string, min: number, max: number): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new TypeError(`${name} must be an integer from ${min} to ${max}, got ${value}`)
  return n
}

const [library = 'conduit', url = '', sizeArg = '16', connectionsArg = '1', roundTripsArg = '20000', warmupArg = '0'] = process.argv.slice(2)
const size = count('size', sizeArg, 0, 1024 * 1024)
const connections = count('connections', connectionsArg, 1, 1000)
const roundTrips = count('roundTrips', roundTripsArg, 0, 1_000_000)
const warmup = count('warmup', warmupArg, 0, 1_000_000)
const agent = new Agent({ connections: null })
const sockets = await Promise.all(Array.from({ length: connections }, () => openEchoSocket(library, url, agent)))
const payload = Buffer.alloc(size, 0x61)

/** `total` round trips spread over the connections (the first ones take the remainder). */
function round (total: number): Promise<void[]> {
  const each = Math.floor(total / connections)
  const extra = total % connections
  return Promise.all(sockets.map((socket: EchoSocket, i) => {
    const n = each + (i < extra ? 1 : 0)
    return n === 0 ? undefined : echoRoundTrips(socket, payload, n)
  }))
}

const handshake = warmup > 0
if (warmup > 0) await round(warmup)
collectYoungGarbage()
if (handshake) {
  tellParent('ready')
  awaitParentLine()
}
await round(roundTrips)
collectYoungGarbage()
if (handshake) {
  tellParent('done')
  awaitParentLine()
}
for (const socket of sockets) socket.close()
await agent.close()
process.exit(0)
