/**
 * The echo server of the WebSocket benchmark, in its own process: a `ws` server on 127.0.0.1
 * that sends every message back. Prints its port on stdout once listening.
 * @module
 */

import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 2 * 1024 * 1024 })
wss.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })))
wss.on('listening', () => { process.stdout.write(`${(wss.address() as AddressInfo).port}\n`) })
