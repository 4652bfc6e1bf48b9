/**
 * Load figures of Clients, Pools and Agents (`stats`), shaped as undici reports them so
 * dashboards written against it read them unchanged.
 * @module
 */

/** A Client's load. */
export interface ClientStats {
  /** True while a connection is open. */
  connected: boolean
  /** Requests waiting to be written. */
  pending: number
  /** Requests written and waiting for their response to complete. */
  running: number
  /** Requests pending or running. */
  size: number
}

/** A Pool's load, summed over its Clients. */
export interface PoolStats {
  /** Clients with an open connection. */
  connected: number
  /** Connected Clients that would take a request at once. */
  free: number
  /** Requests not yet written: in the Pool's queue or a Client's. */
  pending: number
  /** Requests in the Pool's own queue (every Client busy). */
  queued: number
  /** Requests written and waiting for their response. */
  running: number
  /** Requests queued, pending or running. */
  size: number
}

/** The counters a Client-like dispatcher exposes; a custom one may lack some. */
interface ClientFigures {
  connected?: boolean | number
  pending?: number
  running?: number
  size?: number
  busy?: boolean
}

/** Sums the figures of a Pool's Clients; `queued` is the Pool's own queue. */
export function poolStats (clients: readonly unknown[], queued: number): PoolStats {
  const stats: PoolStats = { connected: 0, free: 0, pending: queued, queued, running: 0, size: queued }
  for (const client of clients as ClientFigures[]) {
    const connected = client.connected === true || (typeof client.connected === 'number' && client.connected > 0)
    if (connected) {
      stats.connected++
      if (client.busy !== true) stats.free++
    }
    stats.pending += client.pending ?? 0
    stats.running += client.running ?? 0
    stats.size += client.size ?? 0
  }
  return stats
}

/**
 * Sums the figures of a pool whose members are Clients or Pools (BalancedPool,
 * RoundRobinPool): a Pool member counts with its own totals, a Client member as one connection.
 */
export function sumPoolStats (members: readonly unknown[], queued: number): PoolStats {
  const stats: PoolStats = { connected: 0, free: 0, pending: queued, queued, running: 0, size: queued }
  for (const member of members) {
    const figures = (member as { stats?: Partial<PoolStats> | Partial<ClientStats> }).stats
    if (figures === undefined) continue
    if (typeof figures.connected === 'number') {
      const pool = figures as Partial<PoolStats>
      stats.connected += pool.connected ?? 0
      stats.free += pool.free ?? 0
      stats.queued += pool.queued ?? 0
    } else if (figures.connected === true) {
      stats.connected++
      if ((member as ClientFigures).busy !== true) stats.free++
    }
    stats.pending += figures.pending ?? 0
    stats.running += figures.running ?? 0
    stats.size += figures.size ?? 0
  }
  return stats
}
