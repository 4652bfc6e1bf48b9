import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

describe('examples/waterfall', () => {
  it('prints one bar and one line of phases per request against its own local origin, and exits 0', async () => {
    const example = fileURLToPath(new URL('../../examples/waterfall.js', import.meta.url))
    const child = spawn(process.execPath, [example], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { err += chunk })
    const [code] = await once(child, 'close')
    assert.equal(code, 0, err)
    assert.match(out, /^request +total +reused waterfall \([\d.]+ ms across\)$/m)
    const bars = out.match(/^GET \/\w+ +[\d.]+ ms +(yes|no) +\|[ .dcsr\-=]*$/gm) ?? []
    assert.equal(bars.length, 4, out)
    assert.match(bars[0]!, /^GET \/fast .* no /, 'the first request opens the connection')
    assert.ok(bars.some((bar) => bar.startsWith('GET /slow')))
    assert.match(out, /^\. wait {2}d dns {2}c tcp {2}s tls {2}r request {2}- firstByte {2}= download$/m)
    const phases = out.match(/^GET \/\w+ +wait [\d.]+, dns [\d.]+, tcp [\d.]+, tls [\d.]+, request [\d.]+, firstByte [\d.]+, download [\d.]+ \(ms\)$/gm) ?? []
    assert.equal(phases.length, 4, out)
  })
})
