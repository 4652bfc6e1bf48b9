/**
 * A small SOCKS5 server (RFC 1928, username/password auth per RFC 1929, CONNECT only) on 127.0.0.1
 * for unit tests; it also answers SOCKS4/4a CONNECT requests (the user id must match `auth.username`). It refuses destinations other than loopback, records every CONNECT it sees,
 * and can be told to answer every CONNECT with a given reply code.
 */

import net from 'node:net'
import type { AddressInfo } from 'node:net'

/** SOCKS5 reply codes (RFC 1928 §6). */
export const SocksReply = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  networkUnreachable: 0x03,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08
} as const

/** Options of {@link startSocks5Server}. */
export interface Socks5ServerOptions {
  /** Require username/password authentication with these credentials (SOCKS4: the user id). */
  auth?: { username: string, password: string }
  /** Answer every CONNECT with this reply code instead of connecting (SOCKS4: a rejection). */
  reply?: number
}

/** One CONNECT request the server received. */
export interface SocksConnectRecord {
  /** Address type: 1 IPv4, 3 domain name, 4 IPv6. */
  addressType: number
  host: string
  port: number
  /** The user name the client authenticated with (SOCKS4: the user id), if any. */
  username: string | undefined
  /** SOCKS version the client spoke. */
  version: 4 | 5
}

/** A running SOCKS5 test server. */
export interface Socks5Server {
  port: number
  /** `socks5://127.0.0.1:PORT`. */
  url: string
  /** CONNECT requests seen so far. */
  connects: SocksConnectRecord[]
  /** Client connections accepted so far. */
  connections: number
  close: () => Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', '0:0:0:0:0:0:0:1', 'localhost'])

/** IPv6 address bytes as eight uncompressed groups (`0:0:0:0:0:0:0:1`), good enough to compare. */
function ipv6Text (bytes: Buffer): string {
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16))
  return groups.join(':')
}

function reply (socket: net.Socket, code: number): void {
  socket.write(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]))
}

/** Reads exactly `n` bytes at a time from a socket, whatever the TCP segmentation. */
class Reader {
  #buffer = Buffer.alloc(0)
  #wanted = 0
  #resolve: ((data: Buffer) => void) | null = null

  constructor (socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#drain()
    })
  }

  read (n: number): Promise<Buffer> {
    return new Promise((resolve) => {
      this.#wanted = n
      this.#resolve = resolve
      this.#drain()
    })
  }

  /** Bytes that arrived after the handshake (the client may send early data). */
  rest (): Buffer {
    return this.#buffer
  }

  #drain (): void {
    if (this.#resolve === null || this.#buffer.length < this.#wanted) return
    const data = this.#buffer.subarray(0, this.#wanted)
    this.#buffer = this.#buffer.subarray(this.#wanted)
    const resolve = this.#resolve
    this.#resolve = null
    resolve(data)
  }
}

/** Connects to a loopback destination and splices the two sockets; `answer` sends the reply first. */
function bridge (socket: net.Socket, reader: Reader, host: string, port: number, answer: (ok: boolean) => void): void {
  const upstream = net.connect({ host: host === 'localhost' ? '127.0.0.1' : host.includes(':') ? '::1' : host, port })
  upstream.once('error', () => {
    answer(false)
    socket.end()
  })
  upstream.once('connect', () => {
    answer(true)
    const early = reader.rest()
    socket.removeAllListeners('data')
    if (early.length > 0) upstream.write(early)
    socket.pipe(upstream).pipe(socket)
    upstream.on('error', () => socket.destroy())
    upstream.on('close', () => socket.destroy())
    socket.on('close', () => upstream.destroy())
  })
}

async function readCString (reader: Reader): Promise<string> {
  const bytes: number[] = []
  for (let byte = (await reader.read(1))[0]; byte !== 0; byte = (await reader.read(1))[0]) bytes.push(byte as number)
  return Buffer.from(bytes).toString('utf8')
}

/** SOCKS4 and 4a (a destination of 0.0.0.x means a host name follows the user id). */
async function socks4 (socket: net.Socket, reader: Reader, options: Socks5ServerOptions, server: Socks5Server): Promise<void> {
  const request = await reader.read(7)
  const command = request[0]
  const port = request.readUInt16BE(1)
  const address = [...request.subarray(3, 7)]
  const userId = await readCString(reader)
  const named = address[0] === 0 && address[1] === 0 && address[2] === 0 && address[3] !== 0
  const host = named ? await readCString(reader) : address.join('.')
  server.connects.push({ addressType: named ? 3 : 1, host, port, username: userId || undefined, version: 4 })
  const reply = (granted: boolean): void => { socket.write(Buffer.from([0x00, granted ? 0x5a : 0x5b, 0, 0, 0, 0, 0, 0])) }
  if (command !== 0x01 || options.reply !== undefined || !LOOPBACK.has(host) ||
    (options.auth !== undefined && userId !== options.auth.username)) {
    reply(false)
    socket.end()
    return
  }
  bridge(socket, reader, host, port, reply)
}

async function handshake (socket: net.Socket, options: Socks5ServerOptions, server: Socks5Server): Promise<void> {
  const reader = new Reader(socket)
  const [version] = await reader.read(1)
  if (version === 0x04) return await socks4(socket, reader, options, server)
  if (version !== 0x05) { socket.destroy(); return }
  const [methodCount] = await reader.read(1)
  const methods = await reader.read(methodCount as number)
  const wanted = options.auth === undefined ? 0x00 : 0x02
  if (!methods.includes(wanted)) {
    socket.end(Buffer.from([0x05, 0xff]))
    return
  }
  socket.write(Buffer.from([0x05, wanted]))
  let username: string | undefined
  if (options.auth !== undefined) {
    const [, userLength] = await reader.read(2)
    username = (await reader.read(userLength as number)).toString('utf8')
    const [passLength] = await reader.read(1)
    const password = (await reader.read(passLength as number)).toString('utf8')
    const ok = username === options.auth.username && password === options.auth.password
    socket.write(Buffer.from([0x01, ok ? 0x00 : 0x01]))
    if (!ok) { socket.end(); return }
  }
  const [, command, , addressType] = await reader.read(4)
  let host: string
  if (addressType === 0x01) host = [...await reader.read(4)].join('.')
  else if (addressType === 0x03) host = (await reader.read((await reader.read(1))[0] as number)).toString('utf8')
  else if (addressType === 0x04) host = ipv6Text(await reader.read(16))
  else { reply(socket, SocksReply.addressTypeNotSupported); socket.end(); return }
  const port = (await reader.read(2)).readUInt16BE(0)
  server.connects.push({ addressType: addressType as number, host, port, username, version: 5 })
  if (command !== 0x01) { reply(socket, SocksReply.commandNotSupported); socket.end(); return }
  if (options.reply !== undefined) { reply(socket, options.reply); socket.end(); return }
  if (!LOOPBACK.has(host)) { reply(socket, SocksReply.notAllowed); socket.end(); return }
  bridge(socket, reader, host, port, (ok) => reply(socket, ok ? SocksReply.succeeded : SocksReply.connectionRefused))
}

/**
 * Starts a SOCKS5 server on 127.0.0.1 with a random port.
 * @example
 * const socks = await startSocks5Server({ auth: { username: 'u', password: 'p' } })
 */
export function startSocks5Server (options: Socks5ServerOptions = {}): Promise<Socks5Server> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer()
  const result: Socks5Server = {
    port: 0,
    url: '',
    connects: [],
    connections: 0,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  }
  server.on('connection', (socket) => {
    result.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    handshake(socket, options, result).catch(() => socket.destroy())
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      result.port = (server.address() as AddressInfo).port
      result.url = `socks5://127.0.0.1:${result.port}`
      resolve(result)
    })
  })
}
