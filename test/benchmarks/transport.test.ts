import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { MemorySocket, memoryConnector } from '../../benchmarks/clients/memory-socket.js'
import { CLIENTS, clientById, runTransportBenchmark } from '../../benchmarks/transport.js'
import { combineRuns, formatSummary, median, summarize } from '../../benchmarks/transport-report.js'
import { SCENARIOS, scenarioByName } from '../../benchmarks/transport-scenarios.js'
import type { ScenarioResult } from '../../benchmarks/transport.js'
import type { Duplex } from 'node:stream'

/** Reads `count` data events (the memory socket pushes a small response as one piece). */
function collect (socket: Duplex, count: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk)
      if (chunks.length === count) {
        socket.off('data', onData)
        resolve(Buffer.concat(chunks))
      }
    }
    socket.on('data', onData)
    socket.once('error', reject)
  })
}

describe('benchmark memory socket', () => {
  it('answers each request head with its scenario response, skipping request bodies', async () => {
    const socket = new MemorySocket()
    const post = scenarioByName('post')
    const small = scenarioByName('small')
    const body = Buffer.alloc(post.requestBytes, 'u')
    // A request split mid-head, then a body split across writes, then a second request.
    socket.write(`POST ${post.path} HTTP/1.1\r\nhost: x\r\ncontent-le`)
    socket.write(`ngth: ${body.length}\r\n\r\n`)
    socket.write(body.subarray(0, 1000))
    socket.write(Buffer.concat([body.subarray(1000), Buffer.from(`GET ${small.path} HTTP/1.1\r\nhost: x\r\n\r\n`)]))
    const text = (await collect(socket, 2)).toString('latin1')
    const responses = text.split('HTTP/1.1 200 OK').slice(1)
    assert.equal(responses.length, 2)
    for (const response of responses) assert.match(response, new RegExp(`content-length: ${small.responseBytes}\r\n`))
    socket.destroy()
  })

  it('delivers a large response one socket-read-sized piece per event-loop turn', async () => {
    const socket = new MemorySocket()
    const large = scenarioByName('large')
    const sizes: number[] = []
    let turns = 0
    let total = 0
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        sizes.push(chunk.length)
        total += chunk.length
        if (total > large.responseBytes) resolve()
      })
      socket.write(`GET ${large.path} HTTP/1.1\r\nhost: x\r\n\r\n`)
      const tick = (): void => { turns++; if (total <= large.responseBytes) setImmediate(tick) }
      setImmediate(tick)
    })
    assert.ok(sizes.every((n) => n <= 64 * 1024))
    assert.equal(sizes.length, Math.ceil(total / (64 * 1024)))
    assert.ok(turns >= sizes.length - 1)
    socket.destroy()
  })

  it('fails a request head longer than it reads instead of buffering without end', async () => {
    const socket = new MemorySocket()
    socket.write(`GET /small HTTP/1.1\r\nx: ${'a'.repeat(9000)}`)
    const [err] = await once(socket, 'error') as [Error]
    assert.match(err.message, /request head longer than 8192 bytes/)
  })

  it('hands a socket to a connector callback on the next tick', async () => {
    const socket = await new Promise<Duplex | null>((resolve, reject) => {
      memoryConnector({}, (err, s) => { err === null ? resolve(s) : reject(err) })
    })
    assert.ok(socket instanceof MemorySocket)
    socket.destroy()
  })
})

describe('benchmark report', () => {
  it('takes the median of odd and even lists', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([4, 1, 3, 2]), 2.5)
  })

  it('computes ratios round by round and prints a row per client and a line per comparison', () => {
    const scenario = scenarioByName('small')
    const result: ScenarioResult = {
      scenario,
      memory: false,
      requests: 100,
      rounds: 3,
      samples: [
        { client: clientById('conduit-request'), reqPerSec: [100, 200, 300], cpuUsPerReq: [10, 10, 10] },
        { client: clientById('undici-request'), reqPerSec: [50, 400, 150], cpuUsPerReq: [20, 5, 20] }
      ]
    }
    const summary = summarize(result)
    // Per-round ratios 2, 0.5, 2 (median 2): not the ratio of the medians (200 / 150).
    assert.deepEqual(summary.ratios.map((r) => [r.subject, r.peer, r.throughput, r.cpu]), [['conduit-request', 'undici-request', 2, 0.5]])
    const text = formatSummary(summary)
    assert.match(text, /conduit request +200 /)
    assert.match(text, /conduit request \/ undici request: +req\/s 2\.00x +CPU\/req 0\.50x/)
  })

  it('combines whole runs into medians of each figure and ratio', () => {
    const run = (cpu: number, ratio: number): ReturnType<typeof summarize> => ({
      name: 'small',
      title: 'GET',
      memory: false,
      requests: 10,
      rounds: 5,
      runs: 1,
      concurrency: 50,
      clients: [{ id: 'conduit-request', label: 'conduit request', reqPerSec: 1000 * cpu, cpuUsPerReq: cpu, mbPerSec: cpu }],
      ratios: [{ subject: 'conduit-request', peer: 'undici-request', throughput: 1 / ratio, cpu: ratio }]
    })
    const [combined] = combineRuns([[run(12, 0.9)], [run(10, 0.7)], [run(30, 1.2)]])
    assert.equal(combined!.runs, 3)
    assert.equal(combined!.clients[0]!.cpuUsPerReq, 12)
    assert.equal(combined!.ratios[0]!.cpu, 0.9)
    assert.match(formatSummary(combined!), /median of 3 runs of 5 rounds each/)
    assert.throws(() => combineRuns([]), TypeError)
  })

  it('rejects unknown scenario and client names with the known ones listed', () => {
    assert.throws(() => scenarioByName('huge'), (err: Error) => err instanceof TypeError && err.message.includes('small, large, post'))
    assert.throws(() => clientById('axios'), (err: Error) => err instanceof TypeError && err.message.includes('conduit-request'))
  })
})

describe('transport benchmark run', () => {
  it('measures every client over in-memory sockets and ends by itself', async () => {
    const results = await runTransportBenchmark({ memory: true, rounds: 1, scale: 0.01 })
    assert.deepEqual(results.map((r) => r.scenario.name), SCENARIOS.map((s) => s.name))
    for (const result of results) {
      assert.equal(result.memory, true)
      assert.equal(result.samples.length, CLIENTS.length)
      for (const s of result.samples) {
        assert.equal(s.reqPerSec.length, 1)
        assert.ok(s.cpuUsPerReq[0]! > 0)
      }
    }
  })

  it('measures the chosen clients against the server process on 127.0.0.1', async () => {
    const results = await runTransportBenchmark({ rounds: 1, scale: 0.005, scenarios: ['small', 'post'], clients: ['conduit-dispatch', 'undici-dispatch'] })
    assert.equal(results.length, 2)
    for (const result of results) {
      assert.equal(result.memory, false)
      assert.deepEqual(result.samples.map((s) => s.client.id), ['conduit-dispatch', 'undici-dispatch'])
      assert.equal(summarize(result).ratios.length, 1)
    }
  })

  it('refuses bad rounds and scale values before starting anything', async () => {
    await assert.rejects(runTransportBenchmark({ rounds: 0 }), /rounds must be a positive integer, got 0/)
    await assert.rejects(runTransportBenchmark({ scale: -1 }), /scale must be a positive number, got -1/)
  })
})
