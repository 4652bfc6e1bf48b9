/**
 * Preloaded into every doc example: host names other than localhost (and addresses other than
 * loopback ones, which an example may listen on) do not resolve, so an example that names a
 * host without a local stand-in fails with ENOTFOUND instead of sending traffic off the machine.
 */

import dns from 'node:dns'

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string, family?: number) => void

function refusal (hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (doc examples reach only the placeholder addresses listed in docs/README.md)`), { code: 'ENOTFOUND', hostname })
}

/** Names that stay on the machine: localhost and loopback addresses (127.0.0.0/8, ::1). */
function isLoopback (hostname: string): boolean {
  return hostname === 'localhost' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname)
}

const lookup = dns.lookup
const promisesLookup = dns.promises.lookup

dns.lookup = function (hostname: string, ...rest: unknown[]): void {
  if (isLoopback(hostname)) return (lookup as (...args: unknown[]) => void).call(dns, hostname, ...rest)
  const callback = rest.at(-1) as LookupCallback
  process.nextTick(callback, refusal(hostname))
} as typeof dns.lookup

dns.promises.lookup = async function (hostname: string, ...rest: unknown[]) {
  if (isLoopback(hostname)) return await (promisesLookup as (...args: unknown[]) => Promise<unknown>).call(dns.promises, hostname, ...rest)
  throw refusal(hostname)
} as typeof dns.promises.lookup
