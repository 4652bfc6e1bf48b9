// A strict consumer of the published types: it imports only from 'conduit' and must compile.
import { Writable } from 'node:stream'
import {
  Agent,
  DecoratorHandler,
  fetch,
  interceptors,
  cacheStores,
  errors,
  ProxyAgent,
  RetryAgent,
  MockAgent,
  SnapshotAgent,
  Headers,
  setGlobalDispatcher,
  getGlobalDispatcher
} from 'conduit'
import { runCacheStoreContract } from 'conduit/testing'
import type { MakeContractStore } from 'conduit/testing'
import type {
  CacheKey,
  CacheStore,
  CacheValue,
  Dispatch,
  DispatchController,
  DispatchHandler,
  GetResult,
  IncomingHeaders,
  Interceptor,
  ResponseData
} from 'conduit'

// A custom interceptor with a handler of its own.
class TimingHandler extends DecoratorHandler {
  started = 0
  override onRequestStart (controller: DispatchController, context: unknown): void {
    this.started = Date.now()
    super.onRequestStart(controller, context)
  }

  override onResponseStart (controller: DispatchController, statusCode: number, headers: IncomingHeaders, statusMessage?: string): void {
    super.onResponseStart(controller, statusCode, { ...headers, 'x-elapsed-ms': String(Date.now() - this.started) }, statusMessage)
  }
}

const timing: Interceptor = (dispatch: Dispatch): Dispatch => (opts, handler: DispatchHandler) => dispatch(opts, new TimingHandler(handler))

// A custom, async cache store.
class MapStore implements CacheStore {
  readonly #entries = new Map<string, GetResult>()
  async get (key: CacheKey): Promise<GetResult | undefined> {
    return this.#entries.get(`${key.method} ${key.origin}${key.path}`)
  }

  createWriteStream (key: CacheKey, value: CacheValue): Writable {
    const chunks: Buffer[] = []
    const entries = this.#entries
    return new Writable({
      write (chunk: Buffer, _encoding, callback) { chunks.push(chunk); callback() },
      final (callback) { entries.set(`${key.method} ${key.origin}${key.path}`, { ...value, body: Buffer.concat(chunks) }); callback() }
    })
  }

  async delete (key: CacheKey): Promise<void> {
    this.#entries.delete(`GET ${key.origin}${key.path}`)
  }
}

export async function main (): Promise<void> {
  const agent = new Agent({ connections: 4 }).compose(
    timing,
    interceptors.cache({ store: new MapStore() }),
    interceptors.retry({ maxRetries: 2 })
  )
  // The undici interceptor set, with the options undici documents.
  const undiciStack = new Agent().compose(
    interceptors.redirect({ maxRedirections: 3, throwOnMaxRedirect: true }),
    interceptors.decompress({ skipErrorResponses: false, skipStatusCodes: [204, 304], maxSize: 0 }),
    interceptors.dump({ maxSize: 1024 }),
    interceptors.responseError({ throwOnError: true }),
    interceptors.dns({ maxTTL: 1000, maxItems: 10, dualStack: true, affinity: 4, pick: (_origin, records) => records.records[4]?.ips[0] ?? null }),
    interceptors.deduplicate({ methods: ['GET', 'HEAD'], skipHeaderNames: ['idempotency-key'], excludeHeaderNames: ['x-request-id'], maxBufferSize: 1024 }),
    interceptors.cache({ origins: ['http://127.0.0.1:3000', /\.internal$/] })
  )
  const origin: string | undefined = undiciStack.defaultOrigin
  const redirectError: errors.RedirectError = new errors.RedirectError('max redirects')
  const res: ResponseData = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET' })
  const status: number = res.statusCode
  const text: string = await res.body.text()
  const memory = new cacheStores.MemoryCacheStore({ maxCount: 10 })
  const size: number = memory.size
  const sqlite = new cacheStores.SqliteCacheStore({ location: ':memory:' })
  sqlite.close()
  const proxied = new ProxyAgent({ uri: 'http://127.0.0.1:8080', token: 'Bearer x' })
  const retrying = new RetryAgent(new Agent(), { maxRetries: 1 })
  const mock = new MockAgent()
  mock.get('http://127.0.0.1:3000').intercept({ path: '/', method: 'GET' }).reply(200, 'hi')
  const snapshots = new SnapshotAgent({ mode: 'record' })
  const response = await fetch('http://127.0.0.1:3000/', { dispatcher: agent, headers: new Headers({ a: 'b' }) })
  const ok: boolean = response.ok
  const err: errors.LibraryError = new errors.InvalidArgumentError('x')
  const code: string = err.code
  setGlobalDispatcher(agent)
  const global = getGlobalDispatcher()
  void [status, text, size, proxied, retrying, snapshots, ok, code, global]
}

// A store author runs the published contract suite against their store.
const contractFactory: MakeContractStore = async () => {
  const store = new MapStore()
  return { store, cleanup: async () => {} }
}
runCacheStoreContract('MapStore', contractFactory)
