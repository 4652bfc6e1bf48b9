// Type assertions of conduit's own surface: each line fails to compile when the type drifts.
import conduit, { Dispatcher, Agent, Pool, Client, errors, interceptors, MockAgent, Response } from 'conduit'
import type { DispatchOptions, DispatchHandler, ErrorCodeOf, HttpMethod, Interceptable, RetryOptions, ResponseRedirectStatus } from 'conduit'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
type Expect<T extends true> = T

export type Checks = [
  // Namespace members are conduit's own types under undici's names.
  Expect<Equal<Dispatcher.DispatchOptions, DispatchOptions>>,
  Expect<Equal<Dispatcher.DispatchHandler, DispatchHandler>>,
  Expect<Equal<Dispatcher.HttpMethod, HttpMethod>>,
  Expect<Equal<Agent.Options, ConstructorParameters<typeof Agent>[0] & {}>>,
  Expect<Equal<Pool.Options, NonNullable<ConstructorParameters<typeof Pool>[1]>>>,
  Expect<Equal<Client.Options, NonNullable<ConstructorParameters<typeof Client>[1]>>>,
  Expect<Equal<interceptors.RetryInterceptorOpts, RetryOptions>>,
  // Errors: literal names, and codes in both spellings.
  Expect<Equal<errors.SocketError['name'], 'SocketError'>>,
  Expect<Equal<errors.SocketError['code'], 'LIB_ERR_SOCKET' | 'UND_ERR_SOCKET'>>,
  Expect<Equal<errors.RequestAbortedError['name'], 'AbortError'>>,
  Expect<Equal<ErrorCodeOf<'HeadersTimeoutError'>, 'LIB_ERR_HEADERS_TIMEOUT' | 'UND_ERR_HEADERS_TIMEOUT'>>,
  // The default export is the namespace of names.
  Expect<Equal<typeof conduit.Agent, typeof Agent>>,
  Expect<Equal<ReturnType<MockAgent['get']>, Interceptable>>,
  Expect<Equal<Parameters<typeof Response.redirect>[1], ResponseRedirectStatus | undefined>>
]

// A Dispatcher can be constructed and subclassed, and an error constructed without arguments.
export const plain = new Dispatcher()
export const parserError = new errors.HTTPParserError()

// Options have no index signature, as undici's have none: the per-request options of conduit's
// interceptors are declared members, and an unknown key in an object literal is refused.
export const perRequest: DispatchOptions = {
  path: '/',
  method: 'GET',
  deadlineMs: 500,
  cacheMode: 'no-cache',
  maxRedirections: 2,
  retryOptions: { maxRetries: 1 },
  dns: { affinity: 6 },
  dumpMaxSize: 1024
}
// @ts-expect-error an option no layer declares
export const unknownOption: DispatchOptions = { path: '/', method: 'GET', myKey: 1 }
