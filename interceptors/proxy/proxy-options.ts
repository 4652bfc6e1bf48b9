/**
 * Proxy options: what callers may pass, and the validated form the proxy interceptor works with.
 * Validation happens once, at construction, so a bad option throws before any request is sent.
 * @module
 */

import { InvalidArgumentError, describeValue, describeUrl, failOption, normalizeHeaders } from '../../src/handler.js'
import type { BuildOptions, Connector, Dispatcher, DispatchTarget, OptionFailure } from '../../src/handler.js'
import { proxyAuthorization } from './proxy-auth.js'

/** TLS options for one side of a proxied connection (the proxy itself, or the target through a tunnel). */
export type ProxyTlsOptions = BuildOptions

/** Builds the dispatcher that talks to the proxy itself (used for `CONNECT` and absolute-form requests). */
export type ProxyClientFactory = (origin: URL, opts: { connect: Connector }) => Dispatcher | DispatchTarget

/** The proxy-specific options; the presets add the agent options beside them. */
export interface ProxyOptions {
  /** URI of the proxy: `http:`, `https:`, `socks:`, `socks5:`, `socks5h:`, `socks4:` or `socks4a:`. */
  uri?: string | URL | undefined
  /**
   * Complete `proxy-authorization` value sent to the proxy, e.g. `Bearer <key>`.
   * Takes precedence over `auth` and over credentials in the URI.
   */
  token?: string | undefined
  /**
   * Base64 of `user:password`, sent as `Basic` to the proxy. Cannot be combined with `token`.
   * @deprecated Use `token`.
   */
  auth?: string | undefined
  /**
   * Extra headers for the proxy: on the `CONNECT` request when tunnelling, on every request otherwise.
   * @defaultValue `{}`
   */
  headers?: Record<string, string | string[]> | undefined
  /** TLS options for the connection to the target through a tunnel (e.g. `ca`, `servername`). */
  requestTls?: ProxyTlsOptions | undefined
  /** TLS options for the connection to an `https:` proxy. */
  proxyTls?: ProxyTlsOptions | undefined
  /**
   * Builds the dispatcher used to talk to the proxy itself.
   * @defaultValue a `Pool` for the proxy origin
   */
  clientFactory?: ProxyClientFactory | undefined
  /**
   * Opens the connection to a SOCKS proxy, as a connector does (`(options, callback)`).
   * @defaultValue a plain TCP connection
   */
  socksConnect?: Connector | undefined
  /**
   * `true` tunnels plain `http:` targets through `CONNECT` too, instead of absolute-form requests.
   * @defaultValue unset: tunnel `https:` targets only
   */
  proxyTunnel?: boolean | undefined
}

/** SOCKS details of a `socks*:` proxy URI. */
export interface SocksSettings {
  /** SOCKS protocol version. */
  version: 4 | 5
  /** True when the proxy resolves target names (`socks5h:`, `socks4a:`, `socks:`). */
  remoteDns: boolean
  /** User name (SOCKS5 username/password auth, or the SOCKS4 user id), URL-decoded. */
  userId: string | undefined
  /** Password for SOCKS5 username/password auth, URL-decoded. */
  password: string | undefined
}

/** A proxy after validation: everything needed to route a request through it. */
export interface ResolvedProxy {
  /** The proxy URL without credentials. */
  url: URL
  /** `url.origin`, computed once (URL getters are slow on a hot path). */
  origin: string
  /** `protocol//host` of the proxy, safe to log (never carries credentials). */
  label: string
  /** Port of the proxy, with the scheme's default filled in. */
  port: number
  /** SOCKS details, or null for an HTTP(S) proxy. */
  socks: SocksSettings | null
  /** Headers sent to an HTTP(S) proxy, including the derived `proxy-authorization`. */
  headers: Record<string, string | string[]>
  /** Names of {@link ResolvedProxy.headers}: their values are redacted wherever requests are observed. */
  sensitiveHeaders: readonly string[]
  /** TLS options for targets reached through a tunnel. */
  requestTls: ProxyTlsOptions | undefined
  /** TLS options for the connection to an `https:` proxy. */
  proxyTls: ProxyTlsOptions | undefined
  /** Builds the dispatcher that talks to the proxy; undefined means a `Pool`. */
  clientFactory: ProxyClientFactory | undefined
  /** Opens the connection to a SOCKS proxy; undefined means a plain TCP connection. */
  socksConnect: Connector | undefined
  /** True when plain-HTTP targets are tunnelled too. */
  proxyTunnel: boolean
}

/** Option names that configure the proxy; every other option belongs to the tunnel agent. */
export const PROXY_OPTION_KEYS: readonly string[] = [
  'uri', 'token', 'auth', 'headers', 'requestTls', 'proxyTls', 'clientFactory', 'socksConnect', 'proxyTunnel',
  'httpProxy', 'httpsProxy', 'noProxy', 'connect'
]

/** Default port of each supported scheme, for proxies and targets alike. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'socks:': 1080,
  'socks4:': 1080,
  'socks4a:': 1080,
  'socks5:': 1080,
  'socks5h:': 1080
}

/** SOCKS scheme -> version and where names are resolved (`h` / `a`: at the proxy, as curl does). */
const SOCKS_SCHEMES: Readonly<Record<string, { version: 4 | 5, remoteDns: boolean }>> = {
  'socks:': { version: 5, remoteDns: true },
  'socks5:': { version: 5, remoteDns: false },
  'socks5h:': { version: 5, remoteDns: true },
  'socks4:': { version: 4, remoteDns: false },
  'socks4a:': { version: 4, remoteDns: true }
}

/** Default port of a scheme (`http:`, `https:`, or a SOCKS scheme); 0 when it has none. */
export function defaultPort (protocol: string): number {
  return DEFAULT_PORTS[protocol] ?? 0
}

/** The common proxy schemes (`socks:`...`socks4a:`) this module accepts. */
export const PROXY_SCHEMES: readonly string[] = Object.keys(DEFAULT_PORTS)

// A proxy URI is shown with its credentials masked.
const SHOWN_AS_URL: OptionFailure = Object.freeze({ show: describeUrl })
const SHOWN_AS_RENDERED: OptionFailure = Object.freeze({ show: String })

/** Parses a proxy URI, naming the bad value (credentials hidden) when it is not a usable URL. */
export function parseProxyUri (uri: unknown, where: string): URL {
  // A URL object gets the same checks as a string: it may name any scheme.
  const text = uri instanceof URL ? uri.href : uri
  if (typeof text !== 'string' || text === '') {
    throw new InvalidArgumentError(`${where}: uri is required (a proxy URL string or URL), got ${describeValue(uri)}`)
  }
  // No `cause`: the parser's TypeError keeps the raw string (credentials included) as `input`.
  const url = URL.canParse(text) ? new URL(text) : null
  if (url === null) failOption(where, 'uri', 'a valid URL', text, SHOWN_AS_URL)
  if (!(url.protocol in DEFAULT_PORTS)) {
    // With an `@` in the URI, what parsed as the scheme may be the user name (`user:password@host`).
    failOption(where, 'uri protocol', `one of ${PROXY_SCHEMES.join(', ')}`, text.includes('@') ? describeUrl(text) : JSON.stringify(url.protocol), SHOWN_AS_RENDERED)
  }
  if (url.hostname === '') {
    throw new InvalidArgumentError(`${where}: uri must name a host, got ${describeUrl(text)}`)
  }
  return url
}

/** RFC 9110 §5.1 field names; values may not carry CR, LF or NUL (header injection). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const FORBIDDEN_IN_VALUE = /[\r\n\0]/

function checkHeaders (headers: Record<string, string | string[]>, where: string): void {
  for (const name of Object.keys(headers)) {
    if (!FIELD_NAME.test(name)) throw new InvalidArgumentError(`${where}: header name ${JSON.stringify(name)} is not a valid field name`)
    const values = headers[name] as string | string[]
    for (const value of Array.isArray(values) ? values : [values]) {
      // The value may be a credential, so the message names the header only.
      if (FORBIDDEN_IN_VALUE.test(value)) throw new InvalidArgumentError(`${where}: the value of header ${JSON.stringify(name)} contains CR, LF or NUL`)
    }
  }
}

function optionalString (value: unknown, name: string, where: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') failOption(where, name, 'a string', value)
  return value
}

function decode (part: string, name: string, where: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    // The message names the part only: its value is a credential.
    throw new InvalidArgumentError(`${where}: the ${name} in the proxy uri is not valid percent-encoding`)
  }
}

/**
 * Validates the options common to every proxy URI and resolves one URI with them.
 * Throws {@link InvalidArgumentError} naming the bad value.
 */
export function resolveProxy (uri: unknown, options: ProxyOptions, where = 'proxy()'): ResolvedProxy {
  const url = parseProxyUri(uri, where)
  const token = optionalString(options.token, 'token', where)
  const auth = optionalString(options.auth, 'auth', where)
  if (token !== undefined && auth !== undefined) {
    throw new InvalidArgumentError(`${where}: auth cannot be combined with token; use token alone`)
  }
  const { clientFactory, socksConnect, proxyTunnel, requestTls, proxyTls } = options
  if (socksConnect !== undefined && typeof socksConnect !== 'function') {
    failOption(where, 'socksConnect', 'a function', socksConnect)
  }
  if (clientFactory !== undefined && typeof clientFactory !== 'function') {
    failOption(where, 'clientFactory', 'a function', clientFactory)
  }
  if (proxyTunnel !== undefined && typeof proxyTunnel !== 'boolean') {
    failOption(where, 'proxyTunnel', 'a boolean', proxyTunnel)
  }
  for (const [name, value] of [['requestTls', requestTls], ['proxyTls', proxyTls]] as const) {
    if (value !== undefined && (typeof value !== 'object' || value === null)) {
      failOption(where, name, 'an object of TLS options', value)
    }
  }
  if (options.headers !== undefined && options.headers !== null && typeof options.headers !== 'object') {
    failOption(where, 'headers', 'an object', options.headers)
  }

  const username = decode(url.username, 'user name', where)
  const password = decode(url.password, 'password', where)
  url.username = ''
  url.password = ''
  const socksScheme = SOCKS_SCHEMES[url.protocol]
  const socks: SocksSettings | null = socksScheme === undefined
    ? null
    : { ...socksScheme, userId: username || undefined, password: password || undefined }

  const headers = normalizeHeaders(options.headers)
  const authorization = proxyAuthorization({ token, auth, username, password })
  if (authorization !== undefined) headers['proxy-authorization'] = authorization
  checkHeaders(headers, where)

  return {
    url,
    origin: url.origin,
    label: `${url.protocol}//${url.host}`,
    port: url.port === '' ? defaultPort(url.protocol) : Number(url.port),
    socks,
    headers,
    sensitiveHeaders: Object.keys(headers),
    requestTls,
    proxyTls,
    clientFactory,
    socksConnect,
    proxyTunnel: proxyTunnel === true
  }
}
