/**
 * Turning low-level failures on the way to a proxy into errors that say the proxy was the problem.
 * @module
 */

import { SecureProxyConnectionError } from '../../src/handler.js'
import type { ResolvedProxy } from './proxy-options.js'

/** OpenSSL verification codes Node reports for a certificate it does not accept. */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
  'EPROTO'
])

/** True when `err` (or an error in its `cause` chain) is a TLS handshake or certificate failure. */
export function isTlsFailure (err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || CERTIFICATE_CODES.has(code))) {
      return true
    }
  }
  return false
}

/**
 * Wraps a TLS failure on the connection to an `https:` proxy in {@link SecureProxyConnectionError}
 * (the original error is its `cause`); every other error is returned unchanged.
 */
export function asProxyError (err: Error, proxy: ResolvedProxy): Error {
  if (proxy.url.protocol !== 'https:' || err instanceof SecureProxyConnectionError || !isTlsFailure(err)) return err
  return new SecureProxyConnectionError(err, `TLS connection to proxy ${proxy.label} failed: ${err.message}`)
}
