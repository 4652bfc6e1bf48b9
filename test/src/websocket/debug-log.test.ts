import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { indexUrl, runWithNodeDebug } from '../../helpers/debug-child.js'

// A ws echo server and one conduit WebSocket that sends a message and closes, in a child process.
const script = (path: string, userinfo = ''): string => `
  import { WebSocketServer } from 'ws'
  import * as conduit from ${JSON.stringify(indexUrl)}
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise((resolve) => wss.on('listening', resolve))
  wss.on('connection', (socket) => socket.on('message', (data) => socket.send(data)))
  const port = wss.address().port
  console.error('PORT ' + port)
  const agent = new conduit.Agent()
  const ws = new conduit.WebSocket('ws://${userinfo}127.0.0.1:' + port + '${path}', { dispatcher: agent })
  ws.onopen = () => { conduit.ping(ws, Buffer.from('p')); ws.send('hi') }
  ws.onmessage = () => ws.close(1000, 'done')
  await new Promise((resolve) => { ws.onclose = resolve })
  await agent.close()
  wss.close()
`

function linesOf (stderr: string, namespace: string): { port: string, lines: string[] } {
  const port = /PORT (\d+)/.exec(stderr)![1]!
  const prefix = new RegExp(`^${namespace} \\d+: `)
  return { port, lines: stderr.split('\n').filter((line) => prefix.test(line)).map((line) => line.replace(prefix, '')) }
}

describe('NODE_DEBUG=websocket', () => {
  it('writes the opening handshake and the connection lines, and nothing else', async () => {
    const run = await runWithNodeDebug(script('/chat?x=1'), 'websocket')
    assert.equal(run.code, 0, run.stderr)
    const { port, lines } = linesOf(run.stderr, 'WEBSOCKET')
    assert.deepEqual(lines, [
      `connecting to 127.0.0.1:${port} using http:h1`,
      `connected to 127.0.0.1:${port} using http:h1`,
      `sending request to GET http://127.0.0.1:${port}/chat?x=1`,
      `connection opened 127.0.0.1:${port}`
    ])
  })

  it('writes close reasons, pings and pongs under conduit:websocket', async () => {
    const run = await runWithNodeDebug(script('/'), 'conduit:websocket')
    assert.equal(run.code, 0, run.stderr)
    const { port, lines } = linesOf(run.stderr, 'CONDUIT:WEBSOCKET')
    assert.deepEqual(lines, [
      'pong received',
      `ws://127.0.0.1:${port}/: the server closed with 1000 done`,
      `ws://127.0.0.1:${port}/: closed - 1000 done`
    ])
  })

  it('never writes the password of a URL with credentials', async () => {
    const run = await runWithNodeDebug(script('/', 'user:s3cret-pw@'), 'websocket,conduit,conduit:websocket')
    assert.equal(run.code, 0, run.stderr)
    assert.doesNotMatch(run.stderr, /s3cret-pw/)
    assert.match(run.stderr, /CONDUIT:WEBSOCKET \d+: ws:\/\/\*\*\*@127\.0\.0\.1:\d+\/: closed - 1000 done/)
  })
})
