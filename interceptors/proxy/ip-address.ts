/**
 * IP addresses as numbers, for CIDR matching in NO_PROXY: a few hundred nanoseconds where
 * `net.BlockList.check` costs microseconds per call. IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`)
 * count as the IPv4 address they carry, so one entry covers both spellings.
 * @module
 */

/** An address: its family and its value as an unsigned integer of 32 or 128 bits. */
export interface IpAddress {
  /** 4 or 6; IPv4-mapped IPv6 addresses are 4. */
  family: 4 | 6
  /** The address as an unsigned 32- or 128-bit integer. */
  value: bigint
}

const IPV4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const IPV6_GROUP = /^[0-9a-f]{1,4}$/i
const MAPPED_PREFIX = 0xffffn

function parseIpv4 (text: string): bigint | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return undefined
    value = (value << 8n) | BigInt(part)
  }
  return value
}

function parseIpv6 (text: string): bigint | undefined {
  let address = text
  const zone = address.indexOf('%')
  if (zone !== -1) address = address.slice(0, zone)
  const lastColon = address.lastIndexOf(':')
  if (lastColon === -1) return undefined
  const last = address.slice(lastColon + 1)
  if (last.includes('.')) {
    const v4 = parseIpv4(last)
    if (v4 === undefined) return undefined
    address = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`
  }
  const halves = address.split('::')
  if (halves.length > 2) return undefined
  const head = halves[0] === '' ? [] : (halves[0] as string).split(':')
  const tail = halves.length === 2 && halves[1] !== '' ? (halves[1] as string).split(':') : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  let value = 0n
  for (const group of [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]) {
    if (!IPV6_GROUP.test(group)) return undefined
    value = (value << 16n) | BigInt(parseInt(group, 16))
  }
  return value
}

/** Parses an IPv4 or IPv6 address (no brackets); undefined when `text` is not one. */
export function parseIp (text: string): IpAddress | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text)
    if (value === undefined) return undefined
    return value >> 32n === MAPPED_PREFIX ? { family: 4, value: value & 0xffffffffn } : { family: 6, value }
  }
  const value = parseIpv4(text)
  return value === undefined ? undefined : { family: 4, value }
}

/** A CIDR range, precomputed for matching. */
export interface IpRange {
  /** Family of the addresses in the range. */
  family: 4 | 6
  /** Host bits: an address matches when `value >> shift === prefix`. */
  shift: bigint
  /** The network part of the range. */
  prefix: bigint
}

/** Builds the range `address/bits` (bits omitted: the single address); undefined when invalid. */
export function ipRange (address: string, bits: number | undefined): IpRange | undefined {
  const parsed = parseIp(address)
  if (parsed === undefined) return undefined
  const width = parsed.family === 4 ? 32 : 128
  let prefixBits = bits ?? width
  // A mapped IPv6 range of /96 or longer is an IPv4 range, since mapped hosts are read as IPv4.
  if (parsed.family === 4 && address.includes(':') && bits !== undefined) {
    if (bits < 96) return undefined
    prefixBits = bits - 96
  }
  if (prefixBits < 0 || prefixBits > width) return undefined
  const shift = BigInt(width - prefixBits)
  return { family: parsed.family, shift, prefix: parsed.value >> shift }
}

/** True when `address` lies in `range`. */
export function inRange (address: IpAddress, range: IpRange): boolean {
  return address.family === range.family && address.value >> range.shift === range.prefix
}
