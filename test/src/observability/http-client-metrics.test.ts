// The HTTP client metrics read back through the real OpenTelemetry metrics SDK (its in-memory
// exporter) after a scripted load against a real server: known counts of requests, failures
// and connections, and the open connections by state while requests are held.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { metrics } from '@opentelemetry/api'
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import type { MetricData } from '@opentelemetry/sdk-metrics'
import { Agent, diagnosticsChannels, httpClientMetrics } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { freePort } from '../../helpers/free-port.js'

let server: TestServer
const held: ServerResponse[] = []

before(async () => {
  server = await startHttpServer((req, res) => {
    if (req.url === '/hold') held.push(res)
    else if (req.url === '/fail') req.resume().on('end', () => res.writeHead(500).end('failed'))
    else res.end('ok')
  })
})
after(() => server.close())

/** An SDK pipeline whose reader exports only when flushed. */
function sdk (): { provider: MeterProvider, read: () => Promise<MetricData[]> } {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const provider = new MeterProvider({ readers: [reader] })
  return {
    provider,
    read: async () => {
      await reader.forceFlush()
      const exported = exporter.getMetrics()
      return exported.at(-1)?.scopeMetrics.flatMap((scope) => scope.metrics) ?? []
    }
  }
}

/** The data points of the named metric whose attributes include `match`. */
function points (all: MetricData[], name: string, match: Record<string, unknown> = {}): Array<{ attributes: Record<string, unknown>, value: unknown }> {
  const metric = all.find((m) => m.descriptor.name === name)
  const found = (metric?.dataPoints ?? []) as Array<{ attributes: Record<string, unknown>, value: unknown }>
  return found.filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
}

const sum = (all: MetricData[], name: string, match: Record<string, unknown> = {}): number =>
  points(all, name, match).reduce((total, p) => total + (p.value as number), 0)
const count = (all: MetricData[], name: string, match: Record<string, unknown> = {}): number =>
  points(all, name, match).reduce((total, p) => total + (p.value as { count: number }).count, 0)
const bytes = (all: MetricData[], name: string, match: Record<string, unknown> = {}): number =>
  points(all, name, match).reduce((total, p) => total + (p.value as { sum: number }).sum, 0)

async function get (agent: Agent, path: string, method = 'GET', origin = server.origin): Promise<number> {
  const { statusCode, body } = await agent.request({ origin, path, method, body: method === 'POST' ? 'abc' : undefined })
  await body.text()
  return statusCode
}

describe('httpClientMetrics()', () => {
  it('records the semantic conventions\' HTTP client metrics for a scripted load', async (t) => {
    assert.equal(diagnosticsChannels.create.hasSubscribers, false, 'nothing listens before it starts')
    const { provider, read } = sdk()
    const recording = httpClientMetrics({ meterProvider: provider })
    const agent = new Agent({ connections: 2 })
    t.after(async () => { recording.stop(); if (!agent.closed) await agent.close(); await provider.shutdown() })
    const target = { 'server.address': '127.0.0.1', 'server.port': server.port, 'url.scheme': 'http' }

    for (let i = 0; i < 5; i++) assert.equal(await get(agent, '/ok'), 200)
    for (let i = 0; i < 2; i++) assert.equal(await get(agent, '/fail', 'POST'), 500)
    const holding = [get(agent, '/hold'), get(agent, '/hold')]
    for (let i = 0; i < 1000 && held.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.equal(held.length, 2)
    let seen = await read()
    assert.equal(sum(seen, 'http.client.active_requests', { ...target, 'http.request.method': 'GET' }), 2)
    assert.equal(sum(seen, 'http.client.open_connections', { ...target, 'http.connection.state': 'active' }), 2)
    assert.equal(sum(seen, 'http.client.open_connections', { ...target, 'http.connection.state': 'idle' }), 0)
    held.splice(0).forEach((res) => res.end('x'))
    assert.deepEqual(await Promise.all(holding), [200, 200])
    const closed = await freePort()
    await assert.rejects(get(agent, '/', 'GET', `http://127.0.0.1:${closed}`), { code: 'ECONNREFUSED' })

    seen = await read()
    assert.equal(count(seen, 'http.client.request.duration', { ...target, 'http.request.method': 'GET', 'http.response.status_code': 200 }), 7)
    assert.equal(count(seen, 'http.client.request.duration', { ...target, 'http.request.method': 'POST', 'http.response.status_code': 500, 'error.type': '500' }), 2)
    assert.equal(count(seen, 'http.client.request.duration', { 'server.port': closed, 'error.type': 'ECONNREFUSED' }), 1)
    assert.equal(count(seen, 'http.client.request.duration'), 10, 'every request once')
    assert.equal(sum(seen, 'http.client.active_requests'), 0)
    assert.equal(bytes(seen, 'http.client.request.body.size', { 'http.request.method': 'POST' }), 6)
    assert.equal(bytes(seen, 'http.client.response.body.size', { 'http.response.status_code': 200 }), 5 * 2 + 2 * 1)
    assert.equal(sum(seen, 'http.client.open_connections', { ...target, 'http.connection.state': 'idle' }), 2)
    assert.equal(sum(seen, 'http.client.open_connections', { ...target, 'http.connection.state': 'active' }), 0)
    assert.equal(points(seen, 'http.client.request.duration')[0]?.attributes['url.scheme'], 'http')
    const histogram = seen.find((m) => m.descriptor.name === 'http.client.request.duration')
    assert.equal(histogram?.dataPointType, DataPointType.HISTOGRAM)
    assert.equal(histogram?.descriptor.unit, 's')

    await agent.close()
    for (let i = 0; i < 200 && count(seen, 'http.client.connection.duration', target) < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      seen = await read()
    }
    assert.equal(count(seen, 'http.client.connection.duration', { ...target, 'network.protocol.version': '1.1', 'network.peer.address': '127.0.0.1' }), 2)
    assert.equal(sum(seen, 'http.client.open_connections', target), 0)
  })

  it('records nothing once stopped, and leaves the channels without subscribers', async (t) => {
    const { provider, read } = sdk()
    const recording = httpClientMetrics({ meterProvider: provider })
    const agent = new Agent()
    t.after(async () => { await agent.close(); await provider.shutdown() })
    await get(agent, '/ok')
    recording.stop()
    assert.equal(diagnosticsChannels.create.hasSubscribers, false)
    await get(agent, '/ok')
    assert.equal(count(await read(), 'http.client.request.duration'), 1)
  })

  it('records through the MeterProvider registered with @opentelemetry/api when given none', async (t) => {
    const { provider, read } = sdk()
    metrics.setGlobalMeterProvider(provider)
    const recording = httpClientMetrics()
    const agent = new Agent()
    t.after(async () => { recording.stop(); metrics.disable(); await agent.close(); await provider.shutdown() })
    await get(agent, '/ok')
    assert.equal(count(await read(), 'http.client.request.duration', { 'http.response.status_code': 200 }), 1)
  })

  it('rejects a meterProvider that is not one, naming the value', () => {
    assert.throws(() => httpClientMetrics({ meterProvider: {} as never }), { code: 'LIB_ERR_INVALID_ARG', message: /httpClientMetrics\(\): meterProvider must be a MeterProvider/ })
  })
})
