/**
 * H2CClient: a Client that speaks HTTP/2 over cleartext TCP by prior knowledge (RFC 9113
 * section 3.3), as undici's class of the same name.
 * @module
 */

import { Client, parseOrigin } from './client.js'
import type { ClientOptions } from './client-options.js'
import { describeUrl } from '../observability/redaction.js'
import { failOption } from '../validation/options.js'
import { checkOptionsObject } from './pool-options.js'

/** Options of an {@link H2CClient}: those of a Client; `h2c` is always on. */
export type H2CClientOptions = Omit<ClientOptions, 'h2c' | 'useH2c' | 'allowH2'>

function checkCleartext (origin: string | URL): string | URL {
  const url = parseOrigin(origin, 'H2CClient')
  if (url.protocol !== 'http:') {
    failOption('H2CClient', 'origin', 'an http: URL (h2c is HTTP/2 without TLS; use allowH2 for https:)', String(origin), { show: (value) => describeUrl(String(value)) })
  }
  return origin
}

/**
 * A Client for servers that accept HTTP/2 without TLS.
 * @example
 * const client = new H2CClient('http://127.0.0.1:8080')
 * const { body } = await client.request({ path: '/', method: 'GET' })
 * console.log(await body.text())
 * await client.close()
 */
export class H2CClient extends Client {
  /**
   * @param origin - `http://host:port`
   * @param options - see {@link ClientOptions}
   */
  constructor (origin: string | URL, options?: H2CClientOptions) {
    if (options !== undefined) checkOptionsObject('H2CClient', options)
    const h2Options = options?.h2Options == null ? undefined : { ...options.h2Options, useH2c: true }
    super(checkCleartext(origin), { ...options, h2c: true, useH2c: true, ...(h2Options === undefined ? {} : { h2Options }) })
  }
}

/** undici's names for the H2CClient's types (`H2CClient.Options`). */
export declare namespace H2CClient {
  /** {@link H2CClientOptions}. */
  export type Options = H2CClientOptions
}
