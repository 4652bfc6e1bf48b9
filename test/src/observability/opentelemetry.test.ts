// The real OpenTelemetry SDK with the standard undici instrumentation: every scenario runs
// through undici and through conduit in this one process, and the client spans (names,
// attributes, status) and the `traceparent` the server receives must match.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type http from 'node:http'
import { undici } from '../../helpers/undici-reference.js'
import { context, SpanKind, trace } from '@opentelemetry/api'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { Readable, Writable } from 'node:stream'
import { pipeline as pipelined } from 'node:stream/promises'
import { Agent, Client, fetch, interceptors, pipeline, ProxyAgent, request, stream } from '../../../src/index.js'
import { startHttpServer } from '../../helpers/servers.js'
import type { TestServer } from '../../helpers/servers.js'
import { respond, startH2sServer } from '../../helpers/h2-server.js'
import { startHttpProxy } from '../../helpers/http-proxy.js'
import { caCrt } from '../../helpers/certs.js'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()
const instrumentation = new UndiciInstrumentation()
instrumentation.setTracerProvider(provider)
instrumentation.enable()
const tracer = provider.getTracer('conduit-test')

after(async () => {
  instrumentation.disable()
  await provider.shutdown()
})

/** What a user of the traces sees of one client span; ids and times left out. */
interface SpanSummary {
  name: string
  kind: SpanKind
  status: number
  attributes: Record<string, unknown>
  parentIsTheTestSpan: boolean
  propagated: boolean
}

/** Runs `scenario` inside a parent span and returns the client spans it produced, with what the servers received. */
async function traced (servers: TestServer[], scenario: () => Promise<unknown>): Promise<SpanSummary[]> {
  exporter.reset()
  for (const server of servers) server.requests.length = 0
  let parentId = ''
  await tracer.startActiveSpan('test', async (parent) => {
    parentId = parent.spanContext().spanId
    try {
      await scenario()
    } catch {}
    parent.end()
  })
  const received = servers.flatMap((server) => server.requests.map((r) => String(r.headers.traceparent ?? '')))
  const spans = exporter.getFinishedSpans().filter((span: ReadableSpan) => span.kind === SpanKind.CLIENT)
  return spans.map((span) => {
    const { 'network.peer.port': _port, 'server.port': _serverPort, 'url.full': full, ...attributes } = span.attributes
    return {
      name: span.name,
      kind: span.kind,
      status: span.status.code,
      attributes: { ...attributes, 'url.full': String(full).replace(/:\d+\//, ':PORT/'), 'error.type': attributes['error.type'] },
      parentIsTheTestSpan: span.parentSpanContext?.spanId === parentId,
      propagated: received.includes(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`)
    }
  })
}

function ok (res: http.ServerResponse, body = 'ok'): void {
  res.setHeader('content-type', 'text/plain')
  res.end(body)
}

describe('OpenTelemetry undici instrumentation sees conduit as it sees undici', () => {
  it('request(): one client span with the same attributes, and traceparent on the wire', async (t) => {
    const server = await startHttpServer((req, res) => ok(res))
    t.after(() => server.close())
    const theirs = await traced([server], async () => (await undici.request(`${server.origin}/r?x=1`)).body.text())
    const ours = await traced([server], async () => (await request(`${server.origin}/r?x=1`)).body.text())
    assert.equal(theirs.length, 1)
    assert.deepEqual(ours, theirs)
    assert.equal(ours[0]!.propagated, true)
    assert.equal(ours[0]!.parentIsTheTestSpan, true)
    assert.equal(ours[0]!.attributes['http.response.status_code'], 200)
  })

  it('fetch(): one client span with the same attributes', async (t) => {
    const server = await startHttpServer((req, res) => ok(res))
    t.after(() => server.close())
    const theirs = await traced([server], async () => (await undici.fetch(`${server.origin}/f`)).text())
    const ours = await traced([server], async () => (await fetch(`${server.origin}/f`)).text())
    const withoutAgent = (spans: SpanSummary[]): SpanSummary[] => spans.map((s) => ({ ...s, attributes: { ...s.attributes, 'user_agent.original': undefined } }))
    assert.equal(theirs.length, 1)
    assert.deepEqual(withoutAgent(ours), withoutAgent(theirs))
    assert.equal(ours[0]!.propagated, true)
  })

  it('stream() and pipeline(): one span each, as undici gives', async (t) => {
    const server = await startHttpServer((req, res) => ok(res))
    t.after(() => server.close())
    const sink = (): Writable => new Writable({ write (_chunk, _enc, done) { done() } })
    const viaStream = (fn: typeof stream) => async () => fn(`${server.origin}/s`, { method: 'GET' }, () => sink())
    const viaPipeline = (fn: typeof pipeline) => async () => {
      const duplex = fn(`${server.origin}/p`, { method: 'GET' }, ({ body }) => body)
      await pipelined(Readable.from([]), duplex, sink())
    }
    const theirStream = await traced([server], viaStream(undici.stream as unknown as typeof stream))
    const ourStream = await traced([server], viaStream(stream))
    const theirPipeline = await traced([server], viaPipeline(undici.pipeline as unknown as typeof pipeline))
    const ourPipeline = await traced([server], viaPipeline(pipeline))
    assert.equal(theirStream.length, 1)
    assert.equal(theirPipeline.length, 1)
    assert.deepEqual(ourStream, theirStream)
    assert.deepEqual(ourPipeline, theirPipeline)
  })

  it('a composed retry(): one span per attempt, as undici gives', async (t) => {
    let calls = 0
    const server = await startHttpServer((req, res) => {
      calls++
      if (calls % 2 === 1) { res.statusCode = 503; res.end('busy'); return }
      ok(res)
    })
    t.after(() => server.close())
    const options = { minTimeout: 1, maxTimeout: 2, timeoutFactor: 1, retryAfter: false }
    const theirAgent = new undici.Agent().compose(undici.interceptors.retry(options))
    const ourAgent = new Agent().compose(interceptors.retry(options))
    t.after(async () => { await theirAgent.close(); await ourAgent.close() })
    calls = 0
    const theirs = await traced([server], async () => (await undici.request(`${server.origin}/retry`, { dispatcher: theirAgent })).body.text())
    calls = 0
    const ours = await traced([server], async () => (await request(`${server.origin}/retry`, { dispatcher: ourAgent })).body.text())
    assert.equal(theirs.length, 2)
    assert.deepEqual(ours, theirs)
    assert.deepEqual(ours.map((s) => s.attributes['http.response.status_code']), [503, 200])
  })

  it('redirect(): one span per hop', async (t) => {
    const server = await startHttpServer((req, res) => {
      if (req.url === '/start') { res.statusCode = 302; res.setHeader('location', '/final'); res.end(); return }
      ok(res)
    })
    t.after(() => server.close())
    const theirAgent = new undici.Agent().compose(undici.interceptors.redirect({ maxRedirections: 2 }))
    const ourAgent = new Agent().compose(interceptors.redirect({ maxRedirections: 2 }))
    t.after(async () => { await theirAgent.close(); await ourAgent.close() })
    const theirs = await traced([server], async () => (await undici.request(`${server.origin}/start`, { dispatcher: theirAgent })).body.text())
    const ours = await traced([server], async () => (await request(`${server.origin}/start`, { dispatcher: ourAgent })).body.text())
    assert.equal(theirs.length, 2)
    assert.deepEqual(ours, theirs)
  })

  it('HTTP/2: the same span as undici with allowH2', async (t) => {
    const seen: string[] = []
    const server = await startH2sServer((stream, headers) => {
      seen.push(String(headers.traceparent ?? ''))
      respond(stream, 200, 'h2', { 'content-type': 'text/plain' })
    })
    t.after(() => server.close())
    const theirClient = new undici.Client(server.origin, { allowH2: true, connect: { ca: caCrt } })
    const ourClient = new Client(server.origin, { allowH2: true, connect: { ca: caCrt } })
    t.after(async () => { await theirClient.close(); await ourClient.close() })
    const theirs = await traced([], async () => (await theirClient.request({ path: '/h2', method: 'GET' })).body.text())
    const ours = await traced([], async () => (await ourClient.request({ path: '/h2', method: 'GET' })).body.text())
    assert.equal(theirs.length, 1)
    assert.deepEqual(ours.map((s) => ({ ...s, propagated: undefined })), theirs.map((s) => ({ ...s, propagated: undefined })))
    assert.equal(seen.length, 2)
    assert.match(seen[1]!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
  })

  it('through a proxy: the request to the target is traced, the tunnel is not', async (t) => {
    const server = await startHttpServer((req, res) => ok(res))
    const proxy = await startHttpProxy()
    t.after(async () => { await server.close(); await proxy.close() })
    const theirAgent = new undici.ProxyAgent(proxy.url)
    const ourAgent = new ProxyAgent(proxy.url)
    t.after(async () => { await theirAgent.close(); await ourAgent.close() })
    const theirs = await traced([server], async () => (await undici.request(`${server.origin}/via`, { dispatcher: theirAgent })).body.text())
    const ours = await traced([server], async () => (await request(`${server.origin}/via`, { dispatcher: ourAgent })).body.text())
    assert.equal(theirs.length, 1)
    assert.deepEqual(ours, theirs)
    assert.equal(ours[0]!.propagated, true)
  })

  it('a refused connection: an error span like undici\'s', async () => {
    const closed = await startHttpServer(() => {})
    const origin = closed.origin
    await closed.close()
    const theirs = await traced([], async () => undici.request(`${origin}/down`))
    const ours = await traced([], async () => request(`${origin}/down`))
    assert.equal(theirs.length, 1)
    assert.deepEqual(ours, theirs)
    assert.equal(ours[0]!.status, 2)
  })

  it('leaves requests alone when no span is active and tracing is off', async (t) => {
    const server = await startHttpServer((req, res) => ok(res))
    t.after(() => server.close())
    instrumentation.disable()
    t.after(() => instrumentation.enable())
    await (await request(`${server.origin}/quiet`)).body.text()
    assert.equal(server.requests[0]!.headers.traceparent, undefined)
    assert.equal(trace.getSpan(context.active()), undefined)
  })
})
