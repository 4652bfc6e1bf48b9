import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

describe('npm run demo', () => {
  it('tours every feature offline, printing each result, and exits 0', async () => {
    const demo = fileURLToPath(new URL('../../examples/demo.js', import.meta.url))
    const child = spawn(process.execPath, [demo], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
    child.stderr.resume()
    const [code] = await once(child, 'close')
    assert.equal(code, 0, out)
    assert.match(out, /GET \/hello -> 200 text\/plain: "hello from the local origin"/)
    assert.match(out, /first GET \/cached -> 200, cache-status: conduit; fwd=miss/)
    assert.match(out, /second GET \/cached -> 200, cache-status: conduit; hit/)
    assert.match(out, /origin saw \/cached 1 time\(s\)/)
    assert.match(out, /fetch \/cached -> 200 ok=true, cache-status: conduit; hit/)
    assert.match(out, /origin still saw \/cached 1 time\(s\)/)
    assert.match(out, /retry #1 in 1000 ms after/)
    assert.match(out, /GET \/flaky -> 200 "recovered" \(origin saw it 2 times\)/)
    assert.match(out, /the proxy forwarded 1 request\(s\)/)
    assert.match(out, /CONDUIT <pid>: connecting to 127\.0\.0\.1:\d+ using http:h1/)
    assert.match(out, /CONDUIT <pid>: received response to GET http:\/\/127\.0\.0\.1:\d+\/hello - HTTP 200/)
    assert.match(out, /recorded GET \/users\/1 -> 200 \{"id":1,"name":"Ada"\}/)
    assert.match(out, /replayed GET \/users\/1 -> 200 \{"id":1,"name":"Ada"\}/)
    assert.match(out, /open, extensions: permessage-deflate/)
    assert.match(out, /echoed: "hello over a WebSocket"/)
    assert.match(out, /closed with 1000, clean: true/)
  })
})
