/**
 * Debian's python3-websockets as an independent WebSocket echo server for integration tests:
 * a small script run by the system's Python, echoing every message and choosing the `chat`
 * subprotocol when offered (permessage-deflate is on by default in that library).
 */

import { requirePythonModule } from '../../helpers/test-tools.js'
import { startChildServerIn, tempDir } from './child-server.js'
import { freePort } from '../../helpers/free-port.js'

/** A running Python echo server. */
export interface PythonWebSocketServer {
  /** `ws://127.0.0.1:PORT`. */
  url: string
  stop: () => Promise<void>
}

const SCRIPT = `
import asyncio, sys
import websockets

async def echo(websocket, path=None):
    async for message in websocket:
        await websocket.send(message)

async def main(port):
    async with websockets.serve(echo, '127.0.0.1', port, subprotocols=['chat']):
        await asyncio.Future()

asyncio.run(main(int(sys.argv[1])))
`

/** Starts the server. Fails (never skips) when python3-websockets is not installed. */
export async function startPythonWebSocketServer (): Promise<PythonWebSocketServer> {
  const python = requirePythonModule('websockets', 'python3-websockets')
  const port = await freePort()
  const tmp = await tempDir('conduit-python-ws-')
  const server = await startChildServerIn(tmp, python, ['-c', SCRIPT, String(port)], port)
  return { url: `ws://127.0.0.1:${port}`, stop: server.stop }
}
