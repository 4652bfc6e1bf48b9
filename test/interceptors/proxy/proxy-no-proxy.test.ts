import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { BlockList, isIP } from 'node:net'
import fc from 'fast-check'
import { parseNoProxy } from '../../../interceptors/proxy/no-proxy.js'

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/)
const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'))
const port = fc.integer({ min: 1, max: 65535 })
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))

function toInt (ip: readonly number[]): number {
  return (((ip[0] as number) << 24) | ((ip[1] as number) << 16) | ((ip[2] as number) << 8) | (ip[3] as number)) >>> 0
}

describe('NO_PROXY matcher', () => {
  it('matches a host and its subdomains, with or without a leading dot or *.', () => {
    fc.assert(fc.property(domain, fc.array(label, { maxLength: 3 }), fc.constantFrom('', '.', '*.'), port, (base, sub, prefix, p) => {
      const host = [...sub, base].join('.')
      // All-digit labels can spell IPv4 literals: address entries and hosts never match by name.
      fc.pre(isIP(host) === 0 && isIP(base) === 0)
      assert.equal(parseNoProxy(`${prefix}${base}`).matches(host, p), true)
    }))
  })

  it('never matches a host that only ends with the entry text inside a label', () => {
    fc.assert(fc.property(domain, fc.stringMatching(/^[a-z0-9]{1,8}$/), port, (base, glued, p) => {
      fc.pre(isIP(`${glued}${base}`) === 0)
      assert.equal(parseNoProxy(base).matches(`${glued}${base}`, p), false)
    }))
  })

  it('restricts an entry with a port to that port', () => {
    fc.assert(fc.property(domain, port, port, (host, entryPort, requestPort) => {
      fc.pre(isIP(host) === 0)
      assert.equal(parseNoProxy(`${host}:${entryPort}`).matches(host, requestPort), entryPort === requestPort)
    }))
  })

  it('matches IPv4 CIDR ranges exactly as prefix arithmetic says', () => {
    fc.assert(fc.property(ipv4, fc.integer({ min: 0, max: 32 }), ipv4, (network, bits, address) => {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
      const expected = ((toInt(network) & mask) >>> 0) === ((toInt(address) & mask) >>> 0)
      assert.equal(parseNoProxy(`${network.join('.')}/${bits}`).matches(address.join('.'), 80), expected)
    }))
  })

  it('matches IPv6 CIDR ranges as net.BlockList does', () => {
    const groups = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
    const mapped = (g: number[]): boolean => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff
    fc.assert(fc.property(groups, fc.integer({ min: 0, max: 128 }), groups, (network, bits, address) => {
      // IPv4-mapped addresses are deliberately read as IPv4, where BlockList keeps them IPv6.
      fc.pre(!mapped(network) && !mapped(address))
      const text = (g: number[]): string => g.map((x) => x.toString(16)).join(':')
      const oracle = new BlockList()
      oracle.addSubnet(text(network), bits, 'ipv6')
      assert.equal(parseNoProxy(`[${text(network)}/${bits}]`).matches(`[${text(address)}]`, 80), oracle.check(text(address), 'ipv6'))
    }))
  })

  it('reads IPv4-mapped IPv6 addresses as the IPv4 address they carry', () => {
    assert.equal(parseNoProxy('10.0.0.0/8').matches('[::ffff:10.1.2.3]', 80), true)
    assert.equal(parseNoProxy('::ffff:10.0.0.0/104').matches('10.1.2.3', 80), true)
    assert.equal(parseNoProxy('::ffff:7f00:1').matches('127.0.0.1', 80), true)
    assert.equal(parseNoProxy('::ffff:0:0/64').size, 0)
  })

  it('matches * against everything', () => {
    fc.assert(fc.property(domain, port, (host, p) => {
      assert.equal(parseNoProxy('*').matches(host, p), true)
    }))
  })

  it('never throws on arbitrary input and matches nothing when empty', () => {
    fc.assert(fc.property(fc.string(), domain, port, (list, host, p) => {
      parseNoProxy(list).matches(host, p)
    }))
    assert.equal(parseNoProxy('').matches('localhost', 80), false)
    assert.equal(parseNoProxy(undefined).size, 0)
  })

  it('matches IPv6 addresses bracketed or not, with ports and ranges', () => {
    assert.equal(parseNoProxy('::1').matches('[::1]', 443), true)
    assert.equal(parseNoProxy('[::1]:8080').matches('[::1]', 8080), true)
    assert.equal(parseNoProxy('[::1]:8080').matches('[::1]', 8081), false)
    assert.equal(parseNoProxy('0:0:0:0:0:0:0:1').matches('::1', 80), true)
    assert.equal(parseNoProxy('fd00::/8').matches('[fd12:3456::1]', 80), true)
    assert.equal(parseNoProxy('fd00::/8').matches('[fe80::1]', 80), false)
  })

  it('matches exact IPv4 addresses and never treats them as name suffixes', () => {
    assert.equal(parseNoProxy('127.0.0.1').matches('127.0.0.1', 80), true)
    assert.equal(parseNoProxy('127.0.0.1:3000').matches('127.0.0.1', 3001), false)
    assert.equal(parseNoProxy('0.1').matches('10.0.0.1', 80), false)
  })

  it('splits on commas and whitespace, ignores case, trailing dots and malformed entries', () => {
    const matcher = parseNoProxy(' Example.COM,\tinternal.test  10.0.0.0/33, bad:port, 10.1.0.0/16 ')
    assert.equal(matcher.size, 3)
    assert.equal(matcher.matches('API.example.com.', 443), true)
    assert.equal(matcher.matches('a.internal.test', 80), true)
    assert.equal(matcher.matches('10.1.2.3', 80), true)
    assert.equal(matcher.matches('10.2.0.1', 80), false)
  })
})
