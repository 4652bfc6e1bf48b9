/**
 * Restarting a partly delivered `200` body that has no strong `ETag` (a weak one, or none). Such
 * a validator does not promise identical bytes, so the rest cannot be asked for with `Range`:
 * the request is sent again whole, and the new body continues the delivered one only when its
 * first bytes are exactly the ones the caller already received (compared by digest, so the
 * delivered bytes are never kept). Anything else fails instead of splicing two representations.
 * @module
 */

import { createHash } from 'node:crypto'
import type { Hash } from 'node:crypto'
import type { IncomingHeaders } from '../../src/handler.js'

// Collisions must be out of reach: a matching digest is what lets two bodies be joined.
const DIGEST = 'sha256'
/**
 * Delivered bytes kept unhashed, as references to the chunks the caller already has: a body that
 * ends within them (most API answers) is never hashed, and only a restart pays for the digest.
 */
const UNHASHED_BYTES = 16 * 1024

/** Where a restarted body stands: how much the caller has, and a digest of those bytes. */
export interface RestartPoint {
  /** Marks a restart, as opposed to a `Range` resume. */
  restart: true
  /** Bytes the caller already received. */
  delivered: number
  /** Digest of those bytes. */
  digest: Buffer
  /** The first response's `Content-Length`, which the new one must repeat; undefined when it had none. */
  length: string | undefined
}

function single (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value
}

/** A running digest of the bytes delivered from a body that may have to be restarted. */
export class DeliveredDigest {
  #hash: Hash | null = null
  // Chunks delivered but not hashed yet; once they would pass UNHASHED_BYTES, hashing starts.
  #held: Buffer[] | null = null
  readonly #length: string | undefined
  #delivered = 0

  /** @param headers - the head of the response being delivered */
  constructor (headers: IncomingHeaders) {
    this.#length = single(headers['content-length'])
  }

  /** Adds bytes that reached the caller. */
  update (chunk: Buffer): void {
    this.#delivered += chunk.length
    if (this.#hash !== null) {
      this.#hash.update(chunk)
    } else if (this.#delivered <= UNHASHED_BYTES) {
      (this.#held ??= []).push(chunk)
    } else {
      this.#hash = this.#hashOfHeld()
      this.#hash.update(chunk)
      this.#held = null
    }
  }

  /** The restart point for what was delivered so far; the digest keeps running for later bytes. */
  point (): RestartPoint {
    const digest = this.#hash === null ? this.#hashOfHeld().digest() : this.#hash.copy().digest()
    return { restart: true, delivered: this.#delivered, digest, length: this.#length }
  }

  #hashOfHeld (): Hash {
    const hash = createHash(DIGEST)
    if (this.#held !== null) for (const chunk of this.#held) hash.update(chunk)
    return hash
  }
}

/**
 * Checks the head of the response to a restart. Returns why it cannot continue the body, or
 * undefined when it may (its first bytes are checked next, by {@link PrefixCheck}).
 */
export function checkRestarted (point: RestartPoint, statusCode: number, headers: IncomingHeaders): string | undefined {
  if (statusCode !== 200) return `expected 200 to the request sent again, got ${statusCode}`
  const length = single(headers['content-length'])
  if (point.length !== undefined && length !== point.length) return `Content-Length changed from ${point.length} to ${length ?? 'none'}`
  return undefined
}

/**
 * Reads the first `point.delivered` bytes of a restarted body without delivering them, and
 * compares their digest with the delivered ones. After a match, the rest of the body passes.
 */
export class PrefixCheck {
  /** Status of the restarted response, for the error when its bytes do not match. */
  readonly statusCode: number
  /** Head of the restarted response, for the same error. */
  readonly headers: IncomingHeaders
  /** Bytes the caller already has: where the new body continues. */
  readonly at: number
  readonly #point: RestartPoint
  readonly #hash: Hash = createHash(DIGEST)
  #seen = 0
  #matched: boolean

  constructor (point: RestartPoint, statusCode: number, headers: IncomingHeaders) {
    this.#point = point
    this.statusCode = statusCode
    this.headers = headers
    this.at = point.delivered
    this.#matched = point.delivered === 0
  }

  /** True once the prefix was read and matched: every later byte is new to the caller. */
  get matched (): boolean {
    return this.#matched
  }

  /**
   * Takes one chunk of the new body: returns the part the caller has not seen (possibly empty),
   * or a string saying why the body does not continue the delivered one.
   */
  take (chunk: Buffer): Buffer | string {
    if (this.#matched) return chunk
    const wanted = this.#point.delivered - this.#seen
    const head = chunk.length > wanted ? chunk.subarray(0, wanted) : chunk
    this.#hash.update(head)
    this.#seen += head.length
    if (this.#seen < this.#point.delivered) return chunk.subarray(chunk.length)
    if (!this.#hash.digest().equals(this.#point.digest)) return `its first ${this.#point.delivered} bytes differ from the ones delivered`
    this.#matched = true
    return chunk.subarray(head.length)
  }

  /** Why the body cannot end here (it ended before the delivered length), or undefined. */
  ended (): string | undefined {
    return this.#matched ? undefined : `it ended after ${this.#seen} bytes, before the ${this.#point.delivered} already delivered`
  }
}
