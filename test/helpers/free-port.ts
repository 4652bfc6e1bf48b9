/**
 * A free TCP port on 127.0.0.1 for a server binary started by a test, which needs a port number
 * before it runs.
 *
 * The port is drawn at random from below the kernel's ephemeral range: a port from that range
 * (what `listen(0)` would give) is free when asked, but the kernel may hand it to any outgoing
 * connection before the server binds it, and a suite that opens thousands of connections on two
 * runtimes at once makes that happen (a Redis Cluster node once failed to bind its bus port so).
 * Below the range only another explicit bind can take it.
 */

import { readFileSync } from 'node:fs'
import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** Lowest port drawn: above the well-known and registered ports most services use. */
const LOWEST_PORT = 10_000
/** Draws tried before falling back to a port the kernel picks. */
const DRAWS = 50

/** First port of the kernel's ephemeral range (Linux), or the IANA default elsewhere. */
function ephemeralRangeStart (): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(start) && start > 0 ? start : 49_152
  } catch {
    return 49_152
  }
}

/** Resolves with `port` if it can be bound on 127.0.0.1 now, else with null. */
function bindable (port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(null))
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as AddressInfo).port
      server.close(() => resolve(bound))
    })
  })
}

/** A free TCP port on 127.0.0.1 (free when asked; the server binds it right after). */
export async function freePort (): Promise<number> {
  const end = ephemeralRangeStart()
  if (end - LOWEST_PORT >= 1_000) {
    for (let draw = 0; draw < DRAWS; draw++) {
      const port = await bindable(LOWEST_PORT + Math.floor(Math.random() * (end - LOWEST_PORT)))
      if (port !== null) return port
    }
  }
  const port = await bindable(0)
  if (port === null) throw new Error('no free TCP port on 127.0.0.1')
  return port
}
