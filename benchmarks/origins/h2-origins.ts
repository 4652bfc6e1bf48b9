/**
 * The origins of the HTTP/2 benchmark, each serving the same bodies over h2 and TLS (the test
 * certificate): node:http2 in its own process (`h2-server.ts`), and nginx and h2o, servers in C
 * that cost less per request than the clients they serve, so the client under test sets the pace.
 * nginx and h2o are Debian's packages, started from a temp dir by the integration tests' helpers;
 * an origin whose binary is missing is left out, saying so.
 * @module
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startNginx } from '../../test/integration/helpers/nginx.js'
import { startH2o } from '../../test/integration/helpers/h2o.js'
import { H2_BODIES } from './h2-bodies.js'

/** The origins, in the order the benchmark runs them. */
export const H2_ORIGINS = ['node-http2', 'nginx', 'h2o'] as const
/** One of {@link H2_ORIGINS}. */
export type H2OriginName = typeof H2_ORIGINS[number]

/** A running origin. */
export interface H2Origin {
  name: H2OriginName
  /** `https://localhost:PORT`. */
  url: string
  stop: () => Promise<void>
}

/** The files of {@link H2_BODIES}, named as the file servers serve them (without the slash). */
function files (): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(H2_BODIES).map(([path, body]) => [path.slice(1), body]))
}

async function nodeHttp2 (): Promise<H2Origin> {
  const server = spawn(process.execPath, [fileURLToPath(new URL('./h2-origin.js', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [data] = await once(server.stdout!, 'data') as [Buffer]
  return {
    name: 'node-http2',
    url: `https://localhost:${data.toString().trim()}`,
    stop: async () => {
      const exited = once(server, 'exit')
      server.stdin!.end()
      await exited
    }
  }
}

/** Starts `name`, or resolves with null (after saying why on stderr) when it cannot run here. */
export async function startH2Origin (name: H2OriginName): Promise<H2Origin | null> {
  if (name === 'node-http2') return await nodeHttp2()
  try {
    // nginx ends a connection after 1000 requests by default; a bare node:http2 session does not
    // reconnect, and the rows measure one session, not reconnects.
    const server = name === 'nginx' ? await startNginx(files(), { keepaliveRequests: 1_000_000 }) : await startH2o(files())
    return { name, url: server.origin, stop: server.stop }
  } catch (err) {
    process.stderr.write(`h2 benchmark: the ${name} origin is left out: ${(err as Error).message.split('\n')[0]}\n`)
    return null
  }
}
