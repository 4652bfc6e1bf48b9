/**
 * The local stand-ins for the placeholder addresses doc examples use (listed in docs/README.md):
 * each placeholder in an example's code is replaced by the address of a real local server before
 * the example runs, so examples read naturally and never leave the machine.
 */

import type http from 'node:http'
import type https from 'node:https'
import { startHttpServer, startHttpsServer } from '../helpers/servers.js'
import type { TestServer } from '../helpers/servers.js'
import { startHttpProxy } from '../helpers/http-proxy.js'
import type { TestProxy } from '../helpers/http-proxy.js'
import { startRedisServer } from '../helpers/redis-server.js'
import type { TestRedis } from '../helpers/redis-server.js'
import { startWsEchoServer } from '../helpers/ws-server.js'
import type { WsEchoServer } from '../helpers/ws-server.js'

/** A placeholder address and how to start the local server that stands in for it. */
interface Placeholder {
  address: string
  start: (servers: DocServers) => Promise<string>
}

// Idle connections close quickly so an example that does not close its agent still exits soon.
const IDLE_CLOSE_MS = 200

/** Answers any request with its method, path and body as JSON, cacheable for a minute. */
function echo (req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    res.setHeader('content-type', 'application/json')
    res.setHeader('cache-control', 'max-age=60')
    res.end(JSON.stringify({ method: req.method, path: req.url, bodyLength: Buffer.concat(chunks).length }))
  })
}

async function quickToIdle<S extends { server: { keepAliveTimeout: number } }> (started: Promise<S>): Promise<S> {
  const server = await started
  server.server.keepAliveTimeout = IDLE_CLOSE_MS
  return server
}

/** The placeholders, longest first so one that contains another is replaced first. */
export const PLACEHOLDERS: readonly Placeholder[] = [
  { address: 'http://proxy.internal:3128', start: async (servers) => (await servers.proxy()).url },
  { address: 'redis://cache.internal:6379', start: async (servers) => (await servers.redis()).url },
  { address: 'ws://echo.internal:8080', start: async (servers) => (await servers.websocket()).url },
  { address: 'http://127.0.0.1:3000', start: async (servers) => (await servers.http()).origin },
  { address: 'https://example.org', start: async (servers) => (await servers.https()).origin }
]

/** The local servers, each started on first use and closed together. */
export class DocServers {
  #started: Array<{ close: () => Promise<void> }> = []
  #http: Promise<TestServer<http.Server>> | undefined
  #https: Promise<TestServer<https.Server>> | undefined
  #proxy: Promise<TestProxy> | undefined
  #redis: Promise<TestRedis> | undefined
  #websocket: Promise<WsEchoServer> | undefined

  #track<T extends { close: () => Promise<void> }> (started: Promise<T>): Promise<T> {
    void started.then((server) => this.#started.push(server), () => {})
    return started
  }

  /** The HTTP server standing in for `http://127.0.0.1:3000`. */
  http (): Promise<TestServer<http.Server>> {
    this.#http ??= this.#track(quickToIdle(startHttpServer(echo)))
    return this.#http
  }

  /** The HTTPS server (test CA, certificate for localhost) standing in for `https://example.org`. */
  https (): Promise<TestServer<https.Server>> {
    this.#https ??= this.#track(quickToIdle(startHttpsServer(echo)))
    return this.#https
  }

  /** The forwarding proxy standing in for `http://proxy.internal:3128`. */
  proxy (): Promise<TestProxy> {
    this.#proxy ??= this.#track(startHttpProxy())
    return this.#proxy
  }

  /** The Redis standing in for `redis://cache.internal:6379`. */
  redis (): Promise<TestRedis> {
    this.#redis ??= this.#track(startRedisServer())
    return this.#redis
  }

  /** The WebSocket echo server (permessage-deflate on) standing in for `ws://echo.internal:8080`. */
  websocket (): Promise<WsEchoServer> {
    this.#websocket ??= this.#track(startWsEchoServer({ perMessageDeflate: true }))
    return this.#websocket
  }

  /** `code` with every placeholder it uses replaced by its local server's address (started on demand). */
  async localise (code: string): Promise<string> {
    let result = code
    for (const placeholder of PLACEHOLDERS) {
      if (result.includes(placeholder.address)) result = result.replaceAll(placeholder.address, await placeholder.start(this))
    }
    return result
  }

  /** Closes every server that was started. */
  async close (): Promise<void> {
    await Promise.all([this.#http, this.#https, this.#proxy, this.#redis, this.#websocket].map((started) => started?.catch(() => undefined)))
    await Promise.all(this.#started.map((server) => server.close()))
  }
}
