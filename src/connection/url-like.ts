/**
 * URLs given as a string, a `URL`, or an object of parts (`origin`, or `protocol` + `hostname` +
 * `port`, then `path`, or `pathname` + `search`), read the way undici reads them.
 * @module
 */

import { InvalidArgumentError } from '../errors.js'
import { describeValue } from '../validation/describe-value.js'
import { describeUrl } from '../observability/redaction.js'

/** A URL given as parts, as undici's top-level functions accept it. */
export interface UrlLike {
  /** `http://host:port`; wins over `protocol`, `hostname` and `port`. */
  origin?: string | undefined
  /** `http:` or `https:`, when `origin` is not given. */
  protocol?: string | undefined
  /** Host name or address, when `origin` is not given. */
  hostname?: string | undefined
  /** Port, when `origin` is not given; defaults by protocol. */
  port?: string | number | undefined
  /** Path with query; wins over `pathname` and `search`. */
  path?: string | undefined
  /** Path without query, when `path` is not given. */
  pathname?: string | undefined
  /** Query with its `?`, when `path` is not given. */
  search?: string | undefined
}

/** A URL in any accepted form. */
export type Target = string | URL | UrlLike

function isHttpOrigin (text: string): boolean {
  return /^https?:/i.test(text)
}

/** Turns a URL-like object into a URL the way undici reads one: `origin` (or its parts), then `path` (or `pathname` + `search`). */
function urlFromParts (who: string, parts: UrlLike): URL {
  for (const key of ['origin', 'path', 'pathname', 'hostname'] as const) {
    if (parts[key] != null && typeof parts[key] !== 'string') {
      throw new InvalidArgumentError(`${who}: url.${key} must be a string, got ${describeValue(parts[key])}`)
    }
  }
  const port = parts.port
  if (port != null && port !== '' && !(Number.isInteger(Number(port)) && Number(port) >= 0 && Number(port) <= 65535)) {
    throw new InvalidArgumentError(`${who}: url.port must be an integer from 0 to 65535, got ${describeValue(port)}`)
  }
  if (!isHttpOrigin(parts.origin ?? parts.protocol ?? '')) {
    throw new InvalidArgumentError(`${who}: the URL must be http: or https:, got ${describeUrl(parts.origin ?? parts.protocol)}`)
  }
  const origin = (parts.origin ?? `${parts.protocol}//${parts.hostname ?? ''}:${port ?? (parts.protocol === 'https:' ? 443 : 80)}`).replace(/\/$/, '')
  let path = parts.path ?? `${parts.pathname ?? ''}${parts.search ?? ''}`
  if (path !== '' && path[0] !== '/') path = `/${path}`
  return parseUrl(who, `${origin}${path}`)
}

/** Parses `text` as an http: or https: URL; throws {@link InvalidArgumentError} naming it otherwise. */
export function parseUrl (who: string, text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new InvalidArgumentError(`${who}: invalid URL ${describeUrl(text)}`)
  }
  if (!isHttpOrigin(url.protocol)) throw new InvalidArgumentError(`${who}: the URL must be http: or https:, got ${describeUrl(text)}`)
  return url
}

/** Turns a URL in any accepted form into a `URL`; `who` names the caller in error messages. */
export function toUrl (who: string, target: Target): URL {
  if (typeof target === 'string') return parseUrl(who, target)
  if (target instanceof URL) {
    if (!isHttpOrigin(target.protocol)) throw new InvalidArgumentError(`${who}: the URL must be http: or https:, got ${describeUrl(target)}`)
    return target
  }
  return urlFromParts(who, target)
}

