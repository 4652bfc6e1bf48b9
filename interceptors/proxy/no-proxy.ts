/**
 * The NO_PROXY matcher: decides which targets bypass the proxy.
 * Entries are separated by commas or whitespace; each is one of
 * `*` (everything), a host name (matches itself and its subdomains; a leading `.` or `*.` means
 * the same), an IPv4 or IPv6 address (bracketed when it carries a port), a CIDR range
 * (`10.0.0.0/8`, `fd00::/8`), any of those but `*` and CIDR with `:port` to restrict it to one port.
 * Malformed entries are ignored, as curl does, so a stray value in the environment never breaks requests.
 * @module
 */

import { isIP } from 'node:net'
import { inRange, ipRange, parseIp } from './ip-address.js'
import type { IpRange } from './ip-address.js'

type Entry =
  | { kind: 'all' }
  | { kind: 'name', name: string, port: number }
  | { kind: 'address', range: IpRange, port: number }

/** A parsed NO_PROXY list. */
export interface NoProxyMatcher {
  /** True when a request to `hostname:port` must go direct. `hostname` may be bracketed IPv6. */
  matches (hostname: string, port: number): boolean
  /** Number of usable entries parsed from the list. */
  readonly size: number
}

const PORT = /^\d{1,5}$/

function parsePort (text: string | undefined): number | undefined {
  if (text === undefined) return 0
  if (!PORT.test(text)) return undefined
  const port = Number(text)
  return port > 0 && port <= 65535 ? port : undefined
}

function addressEntry (address: string, prefix: string | undefined, port: number): Entry | undefined {
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined
  const range = ipRange(address, prefix === undefined ? undefined : Number(prefix))
  return range === undefined ? undefined : { kind: 'address', range, port }
}

function parseEntry (token: string): Entry | undefined {
  if (token === '*') return { kind: 'all' }
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(token)
  if (bracketed !== null) {
    const port = parsePort(bracketed[2])
    if (port === undefined) return undefined
    const [address, prefix] = (bracketed[1] as string).split('/')
    return addressEntry(address as string, prefix, port)
  }
  if (isIP(token) === 6) return addressEntry(token, undefined, 0)
  const slash = token.indexOf('/')
  if (slash !== -1) return addressEntry(token.slice(0, slash), token.slice(slash + 1), 0)
  const colon = token.lastIndexOf(':')
  const port = parsePort(colon === -1 ? undefined : token.slice(colon + 1))
  if (port === undefined) return undefined
  const host = colon === -1 ? token : token.slice(0, colon)
  if (isIP(host) === 4) return addressEntry(host, undefined, port)
  const name = host.replace(/^\*?\./, '').replace(/\.$/, '')
  if (name === '' || name.includes('*') || name.includes('/')) return undefined
  return { kind: 'name', name, port }
}

/** Lower-cases a target host and removes IPv6 brackets and a trailing root dot. */
function normalizeHost (hostname: string): string {
  let host = hostname.toLowerCase()
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  if (host.endsWith('.')) host = host.slice(0, -1)
  return host
}

/**
 * Parses a NO_PROXY list; an empty or missing list matches nothing.
 * @example
 * const noProxy = parseNoProxy('localhost, .internal.example, 10.0.0.0/8, [::1]:8080')
 * noProxy.matches('api.internal.example', 443) // true
 */
export function parseNoProxy (list: string | null | undefined): NoProxyMatcher {
  const entries: Entry[] = []
  for (const token of (list ?? '').toLowerCase().split(/[\s,]+/)) {
    if (token === '') continue
    const entry = parseEntry(token)
    if (entry !== undefined) entries.push(entry)
  }
  return {
    size: entries.length,
    matches (hostname: string, port: number): boolean {
      if (entries.length === 0) return false
      const host = normalizeHost(hostname)
      const address = isIP(host) === 0 ? undefined : parseIp(host)
      for (const entry of entries) {
        if (entry.kind === 'all') return true
        if (entry.port !== 0 && entry.port !== port) continue
        if (entry.kind === 'address') {
          if (address !== undefined && inRange(address, entry.range)) return true
        } else if (address === undefined && (host === entry.name || host.endsWith(`.${entry.name}`))) {
          // Name entries never match IP literals: `0.1` must not match `10.0.0.1` by suffix.
          return true
        }
      }
      return false
    }
  }
}
