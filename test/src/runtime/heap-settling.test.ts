import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const moduleUrl = new URL('../../../src/runtime/heap-settling.js', import.meta.url).href
const indexUrl = new URL('../../../src/index.js', import.meta.url).href

describe('read buffer heap settling', () => {
  it('does its work once per process, and only on Linux', async () => {
    // A fresh process: the connections of this test process may have settled it already.
    const script = `import(${JSON.stringify(moduleUrl)}).then((m) => console.log(JSON.stringify([m.keepReadBuffersInHeap(), m.keepReadBuffersInHeap()])))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('.', import.meta.url)) })
    assert.deepEqual(JSON.parse(stdout), [process.platform === 'linux', false])
  })

  it('costs the process no resident memory for the block it drops', async () => {
    // Measured around the call only: loading the module costs memory of its own (on Node 24, MiBs).
    const script = `import(${JSON.stringify(moduleUrl)}).then((m) => {
  const before = process.memoryUsage().rss
  m.keepReadBuffersInHeap()
  console.log(JSON.stringify({ grew: process.memoryUsage().rss - before }))
})`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script])
    // The block is almost 32 MiB and never written: resident memory must not grow by anything near it.
    assert.ok(JSON.parse(stdout).grew < 8 * 1024 * 1024, stdout)
  })

  it('is left alone by connections that read only small responses, and done by the first large read', async () => {
    // A fresh process, so that no earlier connection has settled it: small responses first, then one large one.
    const script = `
import http from 'node:http'
const heap = await import(${JSON.stringify(moduleUrl)})
const { Agent } = await import(${JSON.stringify(indexUrl)})
const large = Buffer.alloc(1024 * 1024, 'x')
const server = http.createServer((req, res) => res.end(req.url === '/large' ? large : 'small'))
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = 'http://127.0.0.1:' + server.address().port
const agent = new Agent()
const seen = []
for (const path of ['/small', '/small', '/large']) {
  const { body } = await agent.request({ origin, path, method: 'GET' })
  seen.push((await body.text()).length, heap.readBuffersSettled())
}
await agent.close()
server.close()
console.log(JSON.stringify(seen))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script])
    assert.deepEqual(JSON.parse(stdout), [5, false, 5, false, 1024 * 1024, true])
  })

  it('is done by the first large read of a WebSocket, not by its small messages', async () => {
    const script = `
import { WebSocketServer } from 'ws'
const heap = await import(${JSON.stringify(moduleUrl)})
const { Agent, WebSocket } = await import(${JSON.stringify(indexUrl)})
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
server.on('connection', (socket) => socket.on('message', (data) => socket.send(data)))
await new Promise((resolve) => server.once('listening', resolve))
const agent = new Agent()
const ws = new WebSocket('ws://127.0.0.1:' + server.address().port, { dispatcher: agent })
ws.binaryType = 'arraybuffer'
await new Promise((resolve) => { ws.onopen = resolve })
const seen = []
for (const size of [5, 1000, 1024 * 1024]) {
  const echoed = new Promise((resolve) => { ws.onmessage = (event) => resolve(event.data.byteLength) })
  ws.send(Buffer.alloc(size, 'x'))
  seen.push(await echoed, heap.readBuffersSettled())
}
ws.close()
await new Promise((resolve) => { ws.onclose = resolve })
await agent.close()
server.close()
console.log(JSON.stringify(seen))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('.', import.meta.url)) })
    assert.deepEqual(JSON.parse(stdout), [5, false, 1000, false, 1024 * 1024, true])
  })
})
