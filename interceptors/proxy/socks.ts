/**
 * SOCKS tunnels through the `socks` package: SOCKS5 (RFC 1928) with username/password auth
 * (RFC 1929), and SOCKS4/4a. `socks5:`/`socks4:` resolve the target name here, `socks5h:`/`socks4a:`
 * (and `socks:`) let the proxy resolve it, as curl does.
 * @module
 */

import { lookup } from 'node:dns'
import { isIP } from 'node:net'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { SocksClient } from 'socks'
import { ProxyConnectionError } from '../../src/handler.js'
import type { ResolvedProxy, SocksSettings } from './proxy-options.js'
import { authority, bareHost } from './tunnel-target.js'
import type { TunnelTarget } from './tunnel-target.js'

/**
 * The `socks` package, loaded by the first SOCKS tunnel. Loaded with the library, it and its
 * dependencies hold about 1 MiB of heap in every process, SOCKS or not, which each full garbage
 * collection marks again (a traced service collects fully every few thousand requests).
 */
let socksClient: Promise<typeof SocksClient> | null = null

function loadSocksClient (): Promise<typeof SocksClient> {
  socksClient ??= import('socks').then((loaded) => loaded.SocksClient)
  return socksClient
}

function resolveTarget (host: string, socks: SocksSettings, callback: (err: Error | null, host?: string) => void): void {
  if (socks.remoteDns || isIP(host) !== 0) {
    callback(null, host)
    return
  }
  // SOCKS4 can only carry an IPv4 address.
  lookup(host, { family: socks.version === 4 ? 4 : 0 }, (err, address) => {
    callback(err, address)
  })
}

/**
 * Opens a tunnel to `target` through a SOCKS proxy. Failures come back as
 * {@link ProxyConnectionError} whose message carries the proxy's SOCKS reply; the credentials
 * the `socks` package keeps on its own errors are not passed on.
 */
export function openSocksTunnel (
  proxy: ResolvedProxy,
  target: TunnelTarget,
  timeoutMs: number,
  callback: (err: Error | null, socket?: Socket) => void
): void {
  const socks = proxy.socks as SocksSettings
  const label = authority(target)
  const refused = (reason: string): ProxyConnectionError =>
    new ProxyConnectionError(`SOCKS${socks.version} proxy ${proxy.label} refused CONNECT to ${label}: ${reason}`)

  resolveTarget(bareHost(target.hostname), socks, (lookupError, host) => {
    if (lookupError !== null || host === undefined) {
      callback(refused(`could not resolve ${target.hostname}: ${lookupError?.message ?? 'no address'}`))
      return
    }
    const handshake = (existing: Duplex | undefined): void => {
      loadSocksClient().then((client) => client.createConnection({
        command: 'connect',
        timeout: timeoutMs,
        destination: { host, port: target.port },
        ...(existing === undefined ? {} : { existing_socket: existing }),
        proxy: {
          host: bareHost(proxy.url.hostname),
          port: proxy.port,
          type: socks.version,
          ...(socks.userId === undefined ? {} : { userId: socks.userId }),
          ...(socks.password === undefined ? {} : { password: socks.password })
        }
      })).then(
        ({ socket }) => callback(null, socket),
        (err: Error) => {
          existing?.destroy()
          callback(refused(err.message))
        }
      )
    }
    const connect = proxy.socksConnect
    if (connect === undefined) {
      handshake(undefined)
      return
    }
    // The caller's connector opens the connection to the proxy; the handshake runs over it.
    const hostname = bareHost(proxy.url.hostname)
    connect({ hostname, host: proxy.url.host, protocol: proxy.url.protocol, port: String(proxy.port), servername: null }, (err, socket) => {
      if (err !== null || socket === null) callback(err ?? refused('the connector returned no socket'))
      else handshake(socket)
    })
  })
}
