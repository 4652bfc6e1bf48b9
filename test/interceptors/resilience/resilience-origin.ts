/**
 * Starts the resilience origin child (test/helpers/resilience-origin-child.ts) and talks to it.
 */

import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { ResilienceChildMessage } from '../../helpers/resilience-origin-child.js'

const CHILD = fileURLToPath(new URL('../../helpers/resilience-origin-child.js', import.meta.url))

/** The running origin process. */
export interface ResilienceOrigin {
  /** `http://127.0.0.1:PORT` of the HTTP listener. */
  origin: string
  /** `https://127.0.0.1:PORT` of the listener that never completes a TLS handshake. */
  silentOrigin: string
  /** Requests seen per path since the last reset. */
  counts: () => Promise<Record<string, number>>
  /** The `Idempotency-Key` headers seen per path since the last reset. */
  keys: () => Promise<Record<string, string[]>>
  /** Requests per path whose connection closed before their answer was written, since the last reset. */
  aborted: () => Promise<Record<string, number>>
  /** Connections open to the HTTP listener now. */
  connections: () => Promise<number>
  /** Sends `'fail'`, `'recover'` or `'reset'` and waits for the acknowledgement. */
  tell: (command: 'fail' | 'recover' | 'reset') => Promise<void>
  stop: () => Promise<void>
}

async function ask (child: ChildProcess, message: string): Promise<ResilienceChildMessage> {
  child.send(message)
  const [reply] = await once(child, 'message') as [ResilienceChildMessage]
  return reply
}

/** Forks the origin and waits until it listens. */
export async function startResilienceOrigin (): Promise<ResilienceOrigin> {
  const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [ports] = await once(child, 'message') as [ResilienceChildMessage]
  if (ports.type !== 'ports') throw new Error(`the origin child sent ${JSON.stringify(ports)} first`)
  return {
    origin: `http://127.0.0.1:${ports.http}`,
    silentOrigin: `https://127.0.0.1:${ports.silent}`,
    counts: async () => {
      const reply = await ask(child, 'counts')
      return reply.type === 'counts' ? reply.counts : {}
    },
    keys: async () => {
      const reply = await ask(child, 'counts')
      return reply.type === 'counts' ? reply.keys : {}
    },
    aborted: async () => {
      const reply = await ask(child, 'counts')
      return reply.type === 'counts' ? reply.aborted : {}
    },
    connections: async () => {
      const reply = await ask(child, 'counts')
      return reply.type === 'counts' ? reply.connections : -1
    },
    tell: async (command) => { await ask(child, command) },
    stop: async () => {
      const exited = once(child, 'exit')
      child.disconnect()
      await exited
    }
  }
}
