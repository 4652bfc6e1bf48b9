import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { MemorySocket, memoryConnector } from '../../benchmarks/origins/memory-socket.js'
import { RequestReader, responseFor } from '../../benchmarks/origins/wire-answers.js'
import { CLIENTS, clientById, runTransportBenchmark } from '../../benchmarks/transport.js'
import { combineRuns, formatHeadline, formatSummary, summarize } from '../../benchmarks/report/transport-report.js'
import { median } from '../../benchmarks/report/stats.js'
import { SCENARIOS, SMALL_BODY, scenarioByName } from '../../benchmarks/transport-scenarios.js'
import { transportChart } from '../../benchmarks/report/transport-chart.js'
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
    assert.deepEqual(summary.ratios[0]!.throughputSpread, [0.5, 2])
    assert.deepEqual(summary.ratios[0]!.cpuSpread, [0.5, 2])
    const text = formatSummary(summary)
    assert.match(text, /conduit request +200 /)
    assert.match(text, /conduit request \/ undici request: +req\/s 2\.00x +CPU\/req 0\.50x/)
    const headline = formatHeadline([summary])
    assert.match(headline, /median and spread of 3 rounds/)
    assert.match(headline, /GET 1 KiB +request\(\), 'data' events, conduit ÷ undici +2\.00x \(0\.50–2\.00\) +0\.50x \(0\.50–2\.00\)/)
  })

  it('compares a cache hit with the same request without the cache', () => {
    const scenario = scenarioByName('cache')
    const conduit = clientById('conduit-request')
    const summary = summarize({
      scenario,
      memory: false,
      requests: 100,
      rounds: 2,
      samples: [
        { client: conduit, reqPerSec: [100, 100], cpuUsPerReq: [10, 10] },
        { client: { ...conduit, id: 'conduit-request+cache' }, reqPerSec: [300, 400], cpuUsPerReq: [4, 2] }
      ]
    })
    assert.deepEqual(summary.ratios.map((r) => [r.what, r.throughput, r.cpu.toFixed(2)]), [['conduit request(), cache hit ÷ no cache', 3.5, '0.30']])
  })

  it('combines whole runs into medians of each figure and ratio', () => {
    const run = (cpu: number, ratio: number): ReturnType<typeof summarize> => ({
      name: 'small',
      title: 'GET',
      label: 'GET 1 KiB',
      memory: false,
      requests: 10,
      rounds: 5,
      runs: 1,
      concurrency: 50,
      clients: [{ id: 'conduit-request', label: 'conduit request', reqPerSec: 1000 * cpu, cpuUsPerReq: cpu, mbPerSec: cpu }],
      ratios: [{ subject: 'conduit-request', peer: 'undici-request', what: 'request()', throughput: 1 / ratio, cpu: ratio, throughputSpread: [1 / ratio, 1 / ratio], cpuSpread: [ratio - 0.1, ratio + 0.1] }]
    })
    const [combined] = combineRuns([[run(12, 0.9)], [run(10, 0.7)], [run(30, 1.2)]])
    assert.equal(combined!.runs, 3)
    assert.equal(combined!.clients[0]!.cpuUsPerReq, 12)
    assert.equal(combined!.ratios[0]!.cpu, 0.9)
    assert.deepEqual(combined!.ratios[0]!.cpuSpread.map((x) => Number(x.toFixed(2))), [0.6, 1.3])
    assert.match(formatSummary(combined!), /median of 3 runs of 5 rounds each/)
    assert.match(formatHeadline([combined!]), /median of 3 runs, spread over their 15 rounds/)
    assert.throws(() => combineRuns([]), TypeError)
  })

  it('rejects unknown scenario and client names with the known ones listed', () => {
    assert.throws(() => scenarioByName('huge'), (err: Error) => err instanceof TypeError && err.message.includes('small, medium, large, post, cache'))
    assert.throws(() => clientById('axios'), (err: Error) => err instanceof TypeError && err.message.includes('conduit-request'))
  })
})

describe('transport benchmark run', () => {
  it('measures every client over in-memory sockets and ends by itself', async () => {
    const results = await runTransportBenchmark({ memory: true, rounds: 1, scale: 0.01 })
    assert.deepEqual(results.map((r) => r.scenario.name), SCENARIOS.map((s) => s.name))
    for (const result of results) {
      assert.equal(result.memory, true)
      const ids = result.samples.map((s) => s.client.id)
      // Every client in every scenario; the two request() clients with a cache also through it.
      // The cache scenario runs the clients that have a cache, through the agent and through the cache.
      // json() clients run only the scenarios that answer JSON.
      const expected = result.scenario.cache === true
        ? CLIENTS.filter((c) => c.cache === true).flatMap((c) => [c.id, c.id + '+cache'])
        : CLIENTS.filter((c) => c.json !== true || result.scenario.responseBytes === SMALL_BODY.length).map((c) => c.id)
      assert.deepEqual(ids, expected)
      for (const s of result.samples) {
        assert.equal(s.reqPerSec.length, 1)
        assert.ok(s.cpuUsPerReq[0]! > 0)
      }
    }
  })

  for (const origin of ['net', 'http'] as const) {
    it(`measures the chosen clients against the ${origin} origin process on 127.0.0.1`, async () => {
      const clients = ['conduit-dispatch', 'undici-dispatch', 'raw-socket']
      const results = await runTransportBenchmark({ rounds: 1, scale: 0.005, scenarios: ['small', 'post'], clients, origin })
      assert.equal(results.length, 2)
      for (const result of results) {
        assert.equal(result.memory, false)
        assert.deepEqual(result.samples.map((s) => s.client.id), clients)
        // conduit ÷ undici and conduit ÷ the raw-socket ceiling.
        assert.deepEqual(summarize(result).ratios.map((r) => r.peer), ['undici-dispatch', 'raw-socket'])
      }
    })
  }

  it('refuses bad rounds and scale values before starting anything', async () => {
    await assert.rejects(runTransportBenchmark({ rounds: 0 }), /rounds must be a positive integer, got 0/)
    await assert.rejects(runTransportBenchmark({ scale: -1 }), /scale must be a positive number, got -1/)
    await assert.rejects(runTransportBenchmark({ origin: 'nginx' as 'net' }), /origin must be "net" or "http", got "nginx"/)
  })
})

describe('benchmark origin request reader', () => {
  it('reports each request once its head and body arrived, whatever the split', () => {
    const post = scenarioByName('post')
    const wire = Buffer.concat([
      Buffer.from(`POST ${post.path} HTTP/1.1\r\ncontent-length: 5\r\n\r\nhello`),
      Buffer.from('GET /small HTTP/1.1\r\nhost: x\r\n\r\n')
    ])
    for (let step = 1; step <= wire.length; step += 7) {
      const paths: string[] = []
      const reader = new RequestReader((path) => paths.push(path), (err) => { throw err })
      for (let off = 0; off < wire.length; off += step) reader.consume(wire.subarray(off, off + step))
      assert.deepEqual(paths, [post.path, '/small'], `pieces of ${step} bytes`)
    }
  })

  it('answers a path no scenario has with 404 and every scenario with its full body', () => {
    assert.match(responseFor('/nope').toString('latin1'), /^HTTP\/1\.1 404 /)
    for (const scenario of SCENARIOS) {
      const whole = responseFor(scenario.path)
      assert.equal(whole.length - (whole.indexOf('\r\n\r\n') + 4), scenario.responseBytes)
    }
  })
})

describe('benchmark chart', () => {
  it('draws one bar per headline row with its spread, escaped labels and the note', () => {
    const summary = summarize({
      scenario: scenarioByName('small'),
      memory: true,
      requests: 10,
      rounds: 2,
      samples: [
        { client: clientById('conduit-request'), reqPerSec: [100, 300], cpuUsPerReq: [5, 10] },
        { client: clientById('undici-request'), reqPerSec: [100, 100], cpuUsPerReq: [10, 10] }
      ]
    })
    const svg = transportChart([summary], 'cpu', 'smoke run <not a measurement>')
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    assert.equal(svg.match(/<rect x=/g)?.length, 1)
    assert.match(svg, /GET 1 KiB: request\(\), 'data' events, conduit ÷ undici/)
    assert.match(svg, /0\.75x/)
    assert.match(svg, /smoke run &lt;not a measurement&gt;/)
    assert.match(transportChart([summary], 'throughput', 'x'), /2\.00x/)
  })
})
