import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const preload = new URL('./loopback-only.js', import.meta.url).href

async function runWithPreload (code: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', preload, '--input-type=module', '-e', code], { encoding: 'utf8' })
  return stdout.trim()
}

describe('doc examples reaching only loopback', () => {
  it('fails callback and promise lookups of other host names with ENOTFOUND', async () => {
    const out = await runWithPreload(`
      import dns from 'node:dns'
      dns.lookup('example.com', (err) => {
        dns.promises.lookup('example.org').catch((err2) => console.log(err.code, err2.code, err2.hostname))
      })`)
    assert.equal(out, 'ENOTFOUND ENOTFOUND example.org')
  })

  it('still resolves localhost', async () => {
    const out = await runWithPreload(`
      import dns from 'node:dns'
      const { address } = await dns.promises.lookup('localhost', { family: 4 })
      dns.lookup('localhost', { family: 4 }, (err, other) => console.log(address, err, other))`)
    assert.equal(out, '127.0.0.1 null 127.0.0.1')
  })

  it('lets an example listen on a loopback address, and refuses other addresses', async () => {
    const out = await runWithPreload(`
      import http from 'node:http'
      const server = http.createServer()
      server.listen(0, '127.0.0.1', () => {
        const other = http.createServer().on('error', (err) => { console.log(server.address().address, err.code); server.close() })
        other.listen(0, '10.0.0.1')
      })`)
    assert.equal(out, '127.0.0.1 ENOTFOUND')
  })

  it('makes a connection to a named host fail before any packet leaves', async () => {
    const out = await runWithPreload(`
      import net from 'node:net'
      net.connect({ host: 'example.com', port: 80 }).on('error', (err) => console.log(err.code))`)
    assert.equal(out, 'ENOTFOUND')
  })
})
