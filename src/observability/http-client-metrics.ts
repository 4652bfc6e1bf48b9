/**
 * OpenTelemetry's HTTP client metrics (semantic conventions, stable), recorded from the
 * `conduit:*` diagnostics channels: nothing subscribes, and so nothing runs per request, until
 * {@link httpClientMetrics} is called, and {@link HttpClientMetrics.stop} unsubscribes again.
 * @module
 */

import type { Duplex } from 'node:stream'
import { channels } from '../diagnostics.js'
import type { ConnectParams, DiagnosticsRequest } from '../diagnostics.js'
import type { IncomingHeaders } from '../contracts/dispatch-contract.js'
import { failOption } from '../validation/options.js'
import { globalMeterProvider } from './otel-meter.js'
import type { HistogramLike, MeterProviderLike, MetricAttributes, UpDownCounterLike } from './otel-meter.js'

/** Options of {@link httpClientMetrics}. */
export interface HttpClientMetricsOptions {
  /**
   * The MeterProvider to record through.
   * @defaultValue the one registered with `@opentelemetry/api` (`metrics.getMeterProvider()`), loaded then
   */
  meterProvider?: MeterProviderLike | undefined
}

/** A running recorder of the HTTP client metrics. */
export interface HttpClientMetrics {
  /** Unsubscribes from the channels: from then on nothing is recorded. Requests and connections in flight are forgotten. */
  stop (): void
}

// The semantic conventions' advice for durations, in seconds.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
// Methods the conventions name; any other is reported as `_OTHER`, keeping the attribute's cardinality bounded.
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE'])
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 }
type Channel = typeof channels.create
type ChannelListener = Parameters<Channel['subscribe']>[0]
const CONTENT_LENGTH_IN_HEAD = /\r\ncontent-length:[ \t]*(\d+)/i

interface Instruments {
  requestDuration: HistogramLike
  activeRequests: UpDownCounterLike
  requestBodySize: HistogramLike
  responseBodySize: HistogramLike
  openConnections: UpDownCounterLike
  connectionDuration: HistogramLike
}

/** One request in flight. */
interface RequestRecord {
  readonly startedAt: number
  /** The attributes of `http.client.active_requests`, which the duration's extend. */
  readonly base: MetricAttributes
  statusCode: number | undefined
  responseBytes: number | undefined
  socket: Duplex | undefined
}

/** One open connection. */
interface ConnectionRecord {
  readonly openedAt: number
  readonly attributes: MetricAttributes
  /** Requests using it now: idle at 0. */
  active: number
}

/** `server.address`, `server.port` and `url.scheme` of an origin such as `https://example.org:8443`. */
function originAttributes (origin: string): MetricAttributes {
  try {
    const url = new URL(origin)
    const scheme = url.protocol.slice(0, -1)
    return { 'server.address': url.hostname, 'server.port': url.port === '' ? DEFAULT_PORTS[url.protocol] ?? 0 : Number(url.port), 'url.scheme': scheme }
  } catch {
    return { 'server.address': origin }
  }
}

function connectionAttributes (params: ConnectParams, socket: Duplex): MetricAttributes {
  const attributes: MetricAttributes = {
    'server.address': params.hostname,
    'server.port': params.port === '' ? DEFAULT_PORTS[params.protocol] ?? 0 : Number(params.port),
    'url.scheme': params.protocol.slice(0, -1),
    'network.protocol.version': params.version === 'h2' ? '2' : '1.1'
  }
  const peer = (socket as { remoteAddress?: unknown }).remoteAddress
  if (typeof peer === 'string') attributes['network.peer.address'] = peer
  return attributes
}

function contentLength (headers: IncomingHeaders): number | undefined {
  const value = headers['content-length']
  const text = Array.isArray(value) ? value[0] : value
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined
}

function createInstruments (provider: MeterProviderLike): Instruments {
  const meter = provider.getMeter('conduit')
  return {
    requestDuration: meter.createHistogram('http.client.request.duration', { description: 'Duration of HTTP client requests.', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    activeRequests: meter.createUpDownCounter('http.client.active_requests', { description: 'Number of active HTTP requests.', unit: '{request}' }),
    requestBodySize: meter.createHistogram('http.client.request.body.size', { description: 'Size of HTTP client request bodies.', unit: 'By' }),
    responseBodySize: meter.createHistogram('http.client.response.body.size', { description: 'Size of HTTP client response bodies.', unit: 'By' }),
    openConnections: meter.createUpDownCounter('http.client.open_connections', { description: 'Number of outbound HTTP connections that are currently active or idle on the client.', unit: '{connection}' }),
    connectionDuration: meter.createHistogram('http.client.connection.duration', { description: 'The duration of the successfully established outbound HTTP connections.', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } })
  }
}

/**
 * Starts recording OpenTelemetry's HTTP client metrics for every request and connection of
 * conduit in this process: `http.client.request.duration`, `http.client.active_requests`,
 * `http.client.request.body.size` and `http.client.response.body.size` (when a
 * `content-length` gives them), `http.client.open_connections` by `http.connection.state`
 * (`active` while a request uses the connection, `idle` between requests), and
 * `http.client.connection.duration`. Bad options throw an `InvalidArgumentError` naming the value.
 * @example
 * import { metrics } from '@opentelemetry/api'
 * import { httpClientMetrics } from 'conduit'
 * const recording = httpClientMetrics({ meterProvider: metrics.getMeterProvider() })
 * // ... later
 * recording.stop()
 */
export function httpClientMetrics (options: HttpClientMetricsOptions = {}): HttpClientMetrics {
  if (options === null || typeof options !== 'object') failOption('httpClientMetrics()', 'options', 'an object', options)
  const given: unknown = options.meterProvider
  if (given !== undefined && (given === null || typeof (given as MeterProviderLike).getMeter !== 'function')) {
    failOption('httpClientMetrics()', 'meterProvider', 'a MeterProvider (an object with getMeter())', given)
  }
  const instruments = createInstruments((given as MeterProviderLike | undefined) ?? globalMeterProvider())
  const requests = new WeakMap<DiagnosticsRequest, RequestRecord>()
  const connections = new Map<Duplex, ConnectionRecord>()

  const stateOf = (record: ConnectionRecord): MetricAttributes => ({ ...record.attributes, 'http.connection.state': record.active > 0 ? 'active' : 'idle' })

  const onCreate = ({ request }: { request: DiagnosticsRequest }): void => {
    const method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER'
    const base = { 'http.request.method': method, ...originAttributes(request.origin) }
    requests.set(request, { startedAt: performance.now(), base, statusCode: undefined, responseBytes: undefined, socket: undefined })
    instruments.activeRequests.add(1, base)
  }

  const onSendHeaders = ({ request, headers, socket }: { request: DiagnosticsRequest, headers: string, socket: Duplex | null }): void => {
    const record = requests.get(request)
    if (record === undefined) return
    const length = CONTENT_LENGTH_IN_HEAD.exec(headers)?.[1]
    if (length !== undefined) instruments.requestBodySize.record(Number(length), record.base)
    const connection = socket === null ? undefined : connections.get(socket)
    if (connection === undefined || record.socket !== undefined) return
    record.socket = socket!
    if (connection.active === 0) instruments.openConnections.add(-1, stateOf(connection))
    connection.active++
    if (connection.active === 1) instruments.openConnections.add(1, stateOf(connection))
  }

  const onHeaders = ({ request, response }: { request: DiagnosticsRequest, response: { statusCode: number, headers: IncomingHeaders } }): void => {
    const record = requests.get(request)
    if (record === undefined) return
    record.statusCode = response.statusCode
    record.responseBytes = contentLength(response.headers)
  }

  const finish = (request: DiagnosticsRequest, errorType: string | undefined): void => {
    const record = requests.get(request)
    if (record === undefined) return
    requests.delete(request)
    instruments.activeRequests.add(-1, record.base)
    const attributes: MetricAttributes = { ...record.base }
    if (record.statusCode !== undefined) attributes['http.response.status_code'] = record.statusCode
    const type = errorType ?? (record.statusCode !== undefined && record.statusCode >= 400 ? String(record.statusCode) : undefined)
    if (type !== undefined) attributes['error.type'] = type
    instruments.requestDuration.record((performance.now() - record.startedAt) / 1000, attributes)
    if (errorType === undefined && record.responseBytes !== undefined) instruments.responseBodySize.record(record.responseBytes, attributes)
    const connection = record.socket === undefined ? undefined : connections.get(record.socket)
    if (connection === undefined) return
    instruments.openConnections.add(-1, stateOf(connection))
    connection.active--
    instruments.openConnections.add(1, stateOf(connection))
  }

  const onTrailers = ({ request }: { request: DiagnosticsRequest }): void => { finish(request, undefined) }
  const onError = ({ request, error }: { request: DiagnosticsRequest, error: Error }): void => {
    // The caller's own abort is no error of the exchange (as the conventions ask).
    const code = (error as { code?: unknown }).code
    finish(request, error.name === 'AbortError' ? undefined : typeof code === 'string' && code !== '' ? code : error.name)
  }

  const onConnected = ({ connectParams, socket }: { connectParams: ConnectParams, socket: Duplex }): void => {
    if (connections.has(socket)) return
    const record: ConnectionRecord = { openedAt: performance.now(), attributes: connectionAttributes(connectParams, socket), active: 0 }
    connections.set(socket, record)
    instruments.openConnections.add(1, stateOf(record))
    socket.once('close', () => {
      if (connections.get(socket) !== record) return
      connections.delete(socket)
      instruments.openConnections.add(-1, stateOf(record))
      instruments.connectionDuration.record((performance.now() - record.openedAt) / 1000, record.attributes)
    })
  }

  // Each listener reads the message shape its channel documents (src/diagnostics.ts).
  const subscriptions: Array<[Channel, (message: never) => void]> = [
    [channels.create, onCreate],
    [channels.sendHeaders, onSendHeaders],
    [channels.headers, onHeaders],
    [channels.trailers, onTrailers],
    [channels.error, onError],
    [channels.connected, onConnected]
  ]
  const listen = (fn: (message: never) => void): ChannelListener => fn as unknown as ChannelListener
  for (const [channel, fn] of subscriptions) channel.subscribe(listen(fn))
  let stopped = false
  return {
    stop () {
      if (stopped) return
      stopped = true
      for (const [channel, fn] of subscriptions) channel.unsubscribe(listen(fn))
      // Connections still open keep their close listener, which finds nothing to record.
      connections.clear()
    }
  }
}
