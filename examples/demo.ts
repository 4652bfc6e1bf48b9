/**
 * The offline tour of conduit (`npm run demo`): local servers on 127.0.0.1 and a local proxy,
 * then one section per feature. Everything stays on this machine and the program exits by itself.
 */

import http from 'node:http'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { mkdtemp, rm, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AddressInfo } from 'node:net'
import { createProxy } from 'proxy'
import { WebSocketServer } from 'ws'
import { Agent, ProxyAgent, SnapshotAgent, WebSocket, fetch, interceptors, cacheStores } from '../src/index.js'
import type { MessageEvent } from '../src/index.js'

const bold = (text: string): string => process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text
const section = (title: string): void => { console.log(`\n${bold(`== ${title}`)}`) }
const line = (text: string): void => { console.log(`   ${text}`) }

/** The origin every section talks to; it counts what reaches it. */
function startOrigin (): http.Server & { hits: Map<string, number> } {
  const hits = new Map<string, number>()
  let flaky = 0
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/'
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (path === '/hello') {
      res.setHeader('content-type', 'text/plain')
      res.end('hello from the local origin')
    } else if (path === '/cached') {
      res.setHeader('cache-control', 'max-age=60')
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ generatedAt: new Date().toISOString() }))
    } else if (path === '/flaky') {
      // Fails once with 503 and a Retry-After hint, then succeeds.
      if (flaky++ === 0) {
        res.writeHead(503, { 'retry-after': '1' })
        res.end('busy, come back in a second')
      } else {
        res.end('recovered')
      }
    } else if (path === '/users/1') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ id: 1, name: 'Ada' }))
    } else {
      res.statusCode = 404
      res.end()
    }
  })
  return Object.assign(server, { hits })
}

async function listen (server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Runs a tiny request in a child process with NODE_DEBUG=conduit and returns its debug lines. */
async function debugLines (origin: string): Promise<string[]> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./debug-child.js', import.meta.url)), origin], {
    env: { ...process.env, NODE_DEBUG: 'conduit' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  await once(child, 'close')
  return stderr.split('\n').filter((l) => l.startsWith('CONDUIT'))
}

async function main (): Promise<void> {
  const started = Date.now()
  const origin = startOrigin()
  const originUrl = await listen(origin)
  const proxyServer = createProxy(http.createServer())
  const proxyUrl = await listen(proxyServer)
  const workDir = await mkdtemp(join(tmpdir(), 'conduit-demo-'))
  const agent = new Agent()
  console.log(`conduit demo: origin ${originUrl}, proxy ${proxyUrl}`)

  try {
    section('1. A plain request through an Agent')
    const plain = await agent.request({ origin: originUrl, path: '/hello', method: 'GET' })
    line(`GET /hello -> ${plain.statusCode} ${plain.headers['content-type']}: "${await plain.body.text()}"`)

    section('2. The RFC 9111 cache: a miss, then a hit')
    const store = new cacheStores.MemoryCacheStore()
    const cached = agent.compose(interceptors.cache({ store }))
    for (const attempt of ['first', 'second']) {
      const res = await cached.request({ origin: originUrl, path: '/cached', method: 'GET' })
      const body = await res.body.text()
      line(`${attempt} GET /cached -> ${res.statusCode}, cache-status: ${res.headers['cache-status']}, body ${body}`)
    }
    line(`origin saw /cached ${origin.hits.get('/cached')} time(s); store holds ${store.size} bytes`)

    section('3. fetch() on the same composed agent: the cache answers it too')
    const fetched = await fetch(`${originUrl}/cached`, { dispatcher: cached })
    line(`fetch /cached -> ${fetched.status} ok=${fetched.ok}, cache-status: ${fetched.headers.get('cache-status')}, json ${JSON.stringify(await fetched.json())}`)
    line(`origin still saw /cached ${origin.hits.get('/cached')} time(s)`)

    section('4. Retry: a 503 with Retry-After, then success')
    const retrying = agent.compose(interceptors.retry({
      maxRetries: 2,
      onRetry: (err, { counter, delayMs }) => line(`retry #${counter} in ${delayMs} ms after: ${err.message}`)
    }))
    const flaky = await retrying.request({ origin: originUrl, path: '/flaky', method: 'GET' })
    line(`GET /flaky -> ${flaky.statusCode} "${await flaky.body.text()}" (origin saw it ${origin.hits.get('/flaky')} times)`)

    section('5. Through a proxy with ProxyAgent')
    let proxied = 0
    proxyServer.on('request', () => { proxied++ })
    const viaProxy = new ProxyAgent(proxyUrl)
    const res = await viaProxy.request({ origin: originUrl, path: '/hello', method: 'GET' })
    line(`GET /hello via proxy -> ${res.statusCode} "${await res.body.text()}"; the proxy forwarded ${proxied} request(s)`)
    await viaProxy.close()

    section('6. NODE_DEBUG=conduit, from a child process')
    for (const debugLine of await debugLines(originUrl)) line(debugLine.replace(/ \d+: /, ' <pid>: '))

    section('7. Snapshots: record real traffic, then replay it with the origin stopped')
    const snapshotPath = join(workDir, 'users.json')
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath })
    const recorded = await recorder.request({ origin: originUrl, path: '/users/1', method: 'GET' })
    line(`recorded GET /users/1 -> ${recorded.statusCode} ${await recorded.body.text()}`)
    await recorder.close()
    const saved = JSON.parse(await readFile(snapshotPath, 'utf8')) as unknown[]
    line(`snapshot file written with ${saved.length} entr${saved.length === 1 ? 'y' : 'ies'}; stopping the origin`)
    origin.closeAllConnections()
    await new Promise<void>((resolve) => origin.close(() => resolve()))
    const player = new SnapshotAgent({ mode: 'playback', snapshotPath })
    const replayed = await player.request({ origin: originUrl, path: '/users/1', method: 'GET' })
    line(`replayed GET /users/1 -> ${replayed.statusCode} ${await replayed.body.text()}`)
    await player.close()

    section('8. WebSocket: an echo through the proxy, compressed')
    await webSocketEcho(proxyUrl)
  } finally {
    await agent.close()
    proxyServer.closeAllConnections()
    proxyServer.close()
    if (origin.listening) {
      origin.closeAllConnections()
      origin.close()
    }
    await rm(workDir, { recursive: true, force: true })
  }
  console.log(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

/** Opens a WebSocket to a local echo server through the proxy (CONNECT), sends, and closes. */
async function webSocketEcho (proxyUrl: string): Promise<void> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: true })
  await once(wss, 'listening')
  wss.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })))
  const dispatcher = new ProxyAgent(proxyUrl)
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/echo`, { dispatcher })
    await once(ws, 'open')
    line(`open, extensions: ${ws.extensions}`)
    ws.send('hello over a WebSocket')
    const [message] = await once(ws, 'message') as [MessageEvent]
    line(`echoed: "${String(message.data)}"`)
    ws.close(1000, 'bye')
    const [closed] = await once(ws, 'close') as [{ code: number, wasClean: boolean }]
    line(`closed with ${closed.code}, clean: ${closed.wasClean}`)
  } finally {
    await dispatcher.close()
    wss.close()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
