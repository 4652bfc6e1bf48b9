/**
 * A connector whose sockets are JavaScript streams relaying a real loopback TCP socket (as a
 * tunnel or a wrapped socket is), for h2c and for TLS over the relay. node:http2 reads such a
 * socket from JavaScript, so the HEADERS and DATA frames of a stream read together reach the
 * session within one callback: its body chunks come before its 'response' event, the order that
 * used to lose response bodies.
 */

import net from 'node:net'
import tls from 'node:tls'
import { Duplex } from 'node:stream'
import type { Connector } from '../../../src/index.js'
import { caCrt } from '../../helpers/certs.js'

/** A Duplex that relays `raw` both ways, with backpressure, and dies with it. */
function relay (raw: net.Socket): Duplex {
  const dup = new Duplex({
    read () { raw.resume() },
    write (chunk: Buffer, _encoding, callback) { raw.write(chunk, callback) },
    final (callback) { raw.end(); callback() },
    destroy (err, callback) { raw.destroy(); callback(err) }
  })
  raw.on('data', (chunk: Buffer) => { if (!dup.push(chunk)) raw.pause() })
  raw.on('end', () => dup.push(null))
  raw.on('error', (err) => dup.destroy(err))
  raw.on('close', () => dup.destroy())
  return dup
}

/** Connects over a relayed socket; `https:` origins get TLS (ALPN h2, the test CA) on top of it. */
export const relayConnector: Connector = (options, callback) => {
  let called = false
  const done = (err: Error | null, socket: Duplex | null): void => {
    if (called) return
    called = true
    callback(err, socket)
  }
  const raw = net.connect({ host: options.hostname, port: Number(options.port) })
  raw.once('error', (err) => done(err, null))
  raw.once('connect', () => {
    const socket = relay(raw)
    if (options.protocol !== 'https:') {
      done(null, socket)
      return
    }
    const secure = tls.connect({ socket, servername: 'localhost', ca: caCrt, ALPNProtocols: ['h2', 'http/1.1'] })
    secure.once('secureConnect', () => done(null, secure))
    secure.once('error', (err) => done(err, null))
  })
}
