/**
 * The client side of the hostile-server memory tests, in a process of its own so its resident
 * memory is its own: `node hostile-client-child.js <scenario> <url>` runs one scenario against
 * the server the test started, samples its RSS every 10 ms, and writes one JSON line on stdout
 * with what the caller observed (events, close code, error code) and the largest RSS seen.
 * An uncaught exception or unhandled rejection is reported in the line, then the process exits 1.
 */

import { EventSource } from '../../src/eventsource/event-source.js'
import { WebSocket } from '../../src/websocket/websocket.js'
import { WebSocketStream } from '../../src/websocket/websocket-stream.js'
import type { CloseEvent, ErrorEvent } from '../../src/websocket/dom-events.js'

/** What a scenario reports. */
export interface ChildReport {
  scenario: string
  /** The events the caller saw, in order, with their close code or error code. */
  events: string[]
  /** Largest resident set size sampled, bytes. */
  maxRss: number
  /** Uncaught exceptions and unhandled rejections, as messages. */
  uncaught: string[]
}

const [scenario = '', url = ''] = process.argv.slice(2)
const events: string[] = []
const uncaught: string[] = []
let maxRss = process.memoryUsage.rss()
const sampler = setInterval(() => { maxRss = Math.max(maxRss, process.memoryUsage.rss()) }, 10)

// Reported at once: a process that would have died has nothing more to say.
process.on('uncaughtException', (err) => { uncaught.push(`uncaught ${err.name}: ${err.message}`); report() })
process.on('unhandledRejection', (reason) => { uncaught.push(`unhandled ${String(reason)}`); report() })

let reported = false
function report (): void {
  if (reported) return
  reported = true
  clearInterval(sampler)
  maxRss = Math.max(maxRss, process.memoryUsage.rss())
  const line: ChildReport = { scenario, events, maxRss, uncaught }
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(uncaught.length === 0 ? 0 : 1))
}

/** Records a WebSocket's error and close events; `onMessage` sees each message. */
function watch (ws: WebSocket, onMessage: (count: number) => void = () => {}): void {
  let messages = 0
  ws.binaryType = 'arraybuffer'
  ws.addEventListener('message', () => { onMessage(++messages) })
  ws.addEventListener('error', (event) => {
    const error = (event as ErrorEvent).error as { code?: string, closeCode?: number }
    events.push(`error ${error.code ?? ''} ${error.closeCode ?? ''}`.trimEnd())
  })
  ws.addEventListener('close', (event) => {
    const close = event as CloseEvent
    events.push(`messages ${messages}`, `close ${close.code} ${close.wasClean}`)
    report()
  })
}

async function streamCancelled (): Promise<void> {
  const wss = new WebSocketStream(url)
  const { readable } = await wss.opened
  const reader = readable.getReader()
  const first = await reader.read()
  events.push(`read ${String(first.value)}`)
  await reader.cancel()
  events.push('cancelled')
  try {
    const closed = await wss.closed
    events.push(`closed ${closed.closeCode} ${closed.reason}`)
  } catch (err) {
    events.push(`closed with ${(err as Error).name} ${(err as { closeCode?: number }).closeCode}`)
  }
  // Late events of the socket (a message or close after the cancel) would surface now.
  setTimeout(report, 100)
}

function eventSource (): void {
  const source = new EventSource(url)
  source.addEventListener('open', () => events.push('open'))
  source.addEventListener('message', () => events.push('message'))
  source.addEventListener('error', () => {
    events.push(`error ${source.readyState}`)
    if (source.readyState === EventSource.CLOSED) report()
    else source.close()
  })
}

switch (scenario) {
  case 'fragments':
  case 'after-close':
  case 'pings':
    watch(new WebSocket(url))
    break
  case 'inflate': {
    // Closes after a few messages: the rest must be read without being inflated or kept.
    const ws = new WebSocket(url)
    watch(ws, (count) => { if (count === 8) ws.close(1000) })
    break
  }
  case 'stream-cancel':
    void streamCancelled()
    break
  case 'eventsource':
    eventSource()
    break
  default:
    uncaught.push(`unknown scenario ${scenario}`)
    report()
}
