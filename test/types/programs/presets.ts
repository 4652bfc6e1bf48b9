// The cache, retry and proxy presets, composed as undici's users write them.
import { Agent, EnvHttpProxyAgent, ProxyAgent, RetryAgent, cacheStores, interceptors } from 'undici'

export const cached = new Agent().compose(
  interceptors.cache({ store: new cacheStores.MemoryCacheStore({ maxSize: 1024 * 1024 }), methods: ['GET'] }),
  interceptors.retry({ maxRetries: 2, minTimeout: 10, statusCodes: [502, 503] }),
  interceptors.redirect({ maxRedirections: 3 }),
  interceptors.dns({ maxTTL: 1000 })
)

export const retrying = new RetryAgent(new Agent(), { maxRetries: 3, methods: ['GET', 'PUT'] })
export const proxied = new ProxyAgent({ uri: 'http://127.0.0.1:8080', token: 'Basic dXNlcjpwYXNz' })
export const fromEnvironment = new EnvHttpProxyAgent({ noProxy: '127.0.0.1' })
