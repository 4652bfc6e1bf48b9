// Event streams that never end an event: the client (in a child process, so its RSS is its own)
// must fail the connection at maxEventSize (16 MiB by default) with its memory bounded, whatever
// the event is made of, and nothing may go uncaught.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { startHttpServer } from '../../helpers/servers.js'
import { RSS_LIMIT, runHostileClient } from '../../helpers/run-hostile-client.js'

const MIB = 1024 * 1024

/** Answers every request with an event stream that writes `chunk` until `limit` bytes went out or the client left. */
function endless (chunk: Buffer, limit: number, sent: number[]): http.RequestListener {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    let total = 0
    const pump = (): void => {
      while (total < limit && !res.destroyed) {
        total += chunk.length
        if (!res.write(chunk)) {
          res.once('drain', pump)
          return
        }
      }
      sent.push(total)
      res.end()
    }
    res.on('close', () => { if (total < limit) sent.push(total) })
    pump()
  }
}

async function run (chunk: Buffer, limit: number): Promise<{ events: string[], maxRss: number, uncaught: string[], exitCode: number | null, sent: number[], requests: number }> {
  const sent: number[] = []
  const server = await startHttpServer(endless(chunk, limit, sent))
  try {
    const report = await runHostileClient('eventsource', `${server.origin}/stream`)
    return { ...report, sent, requests: server.requests.length }
  } finally {
    await server.close()
  }
}

describe('EventSource against a stream that never ends an event (client in a child process)', () => {
  const cases: Array<[string, Buffer]> = [
    ['millions of empty data lines', Buffer.from('data\n'.repeat(16 * 1024))],
    ['short data lines', Buffer.from('data: x\n'.repeat(8 * 1024))],
    ['one line without an end', Buffer.alloc(64 * 1024, 0x61)]
  ]
  for (const [what, chunk] of cases) {
    it(`fails the connection at maxEventSize on ${what}, with bounded memory and no reconnection`, async () => {
      const result = await run(chunk, 200 * MIB)
      assert.deepEqual(result.uncaught, [])
      assert.equal(result.exitCode, 0)
      assert.deepEqual(result.events, ['open', 'error 2'])
      assert.equal(result.requests, 1)
      assert.ok(result.maxRss < RSS_LIMIT, `the client's RSS reached ${Math.round(result.maxRss / MIB)} MiB`)
      assert.ok(result.sent[0]! < 100 * MIB, `the server wrote ${Math.round(result.sent[0]! / MIB)} MiB before the client gave up`)
    })
  }
})
