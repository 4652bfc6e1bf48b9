/**
 * One client of the WebSocket benchmark, in its own process: opens `connections` WebSockets with
 * one library (conduit, undici or ws), runs `messages` echo round trips on each (send, wait for
 * the echo, repeat), and prints `{ roundTrips, seconds, cpuMicros }` as JSON. `warmup` round trips
 * per connection run first and are not measured, so every library is timed with its code compiled.
 * Every client sends Buffers (binary messages) and receives them as ArrayBuffers.
 * Arguments: `<library> <url> <size> <connections> <messages> [warmup]`.
 * @module
 */

import { Agent } from '../../src/index.js'
import { echoRoundTrips, openEchoSocket } from './websocket-echo.js'

const [library, url, sizeText, connectionsText, messagesText, warmupText = '0'] = process.argv.slice(2)
const size = Number(sizeText)
const connections = Number(connectionsText)
const messages = Number(messagesText)
const warmup = Number(warmupText)
const agent = new Agent({ connections: null })
const sockets = await Promise.all(Array.from({ length: connections }, () => openEchoSocket(library!, url!, agent)))
const payload = Buffer.alloc(size, 0x61)

if (warmup > 0) await Promise.all(sockets.map((socket) => echoRoundTrips(socket, payload, warmup)))
const cpuBefore = process.cpuUsage()
const started = process.hrtime.bigint()
await Promise.all(sockets.map((socket) => echoRoundTrips(socket, payload, messages)))
const seconds = Number(process.hrtime.bigint() - started) / 1e9
const cpu = process.cpuUsage(cpuBefore)
for (const socket of sockets) socket.close()
process.stdout.write(`${JSON.stringify({ roundTrips: connections * messages, seconds, cpuMicros: cpu.user + cpu.system })}\n`)
await agent.close()
process.exit(0)
