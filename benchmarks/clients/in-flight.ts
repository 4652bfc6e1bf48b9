/**
 * The loop of the single-scenario client processes (HTTP/2, BalancedPool): keep a fixed number of
 * requests in flight until a total is done, after a warm-up, and report the rate and the
 * process's CPU per request.
 * @module
 */

/** What such a client prints: requests per second and CPU microseconds per request. */
export interface InFlightFigures { reqPerSec: number, cpuUsPerReq: number }

/** Runs `one` `total` times, `concurrency` at a time. */
export async function keepInFlight (total: number, concurrency: number, one: () => Promise<unknown>): Promise<void> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < total) {
      started++
      await one()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** Warms up with `warmUp` requests (connections, TLS, JIT), then measures `total` of them. */
export async function measureInFlight (total: number, concurrency: number, warmUp: number, one: () => Promise<unknown>): Promise<InFlightFigures> {
  await keepInFlight(Math.min(total, warmUp), concurrency, one)
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  await keepInFlight(total, concurrency, one)
  const elapsedNs = Number(process.hrtime.bigint() - start)
  const used = process.cpuUsage(cpu)
  return { reqPerSec: total / (elapsedNs / 1e9), cpuUsPerReq: (used.user + used.system) / total }
}
