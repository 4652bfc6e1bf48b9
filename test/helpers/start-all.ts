/**
 * Starting several test servers together without leaking the ones that did start when another
 * one fails: a before-hook that throws leaves its `after` hook with nothing assigned to close, and
 * a listening socket or a child process left open keeps the test process alive forever.
 */

/**
 * The timeout for a before-hook that starts helper servers: each start has its own deadline, and
 * this one is the backstop so the hook fails rather than waits forever.
 */
export const HELPER_START_TIMEOUT_MS = 60_000

/** A started server or process: anything with `stop()` or `close()`. */
type Stoppable = { stop: () => Promise<void> } | { close: () => Promise<void> }

async function shutDown (started: unknown): Promise<void> {
  const server = started as Partial<{ stop: () => Promise<void>, close: () => Promise<void> }>
  if (typeof server.stop === 'function') await server.stop()
  else if (typeof server.close === 'function') await server.close()
}

/**
 * Like `Promise.all` over server starts, but when any start fails, every server that did start is
 * stopped (or closed) before the first failure is rethrown.
 * @example
 * [proxy, origin] = await startAll([startSquid(), startHttpServer(handler)])
 */
export async function startAll<T extends ReadonlyArray<Promise<Stoppable>> | []> (starts: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled: Array<PromiseSettledResult<Stoppable>> = await Promise.allSettled([...starts] as Array<Promise<Stoppable>>)
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected')
  if (failure === undefined) {
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> }
  }
  await Promise.allSettled(settled.map((result) => result.status === 'fulfilled' ? shutDown(result.value) : undefined))
  throw failure.reason
}
