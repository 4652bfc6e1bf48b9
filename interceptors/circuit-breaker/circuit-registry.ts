/**
 * The circuits of one interceptor, by key, with a cap: past it the oldest closed circuit is
 * forgotten (an open one is kept, or the upstream it protects would be hit again at once).
 * @module
 */

import { interceptorChannels } from '../../src/handler.js'
import { debuglog } from 'node:util'
import { Circuit } from './circuit.js'
import type { CircuitStateChange } from './circuit.js'
import type { ResolvedCircuitBreakerOptions } from './options.js'

const debug = debuglog('conduit:circuit-breaker')

function publish (change: CircuitStateChange): void {
  if (debug.enabled) debug('circuit %s: %s -> %s: %s', change.key, change.from, change.to, change.reason)
  if (interceptorChannels.circuitStateChange.hasSubscribers) interceptorChannels.circuitStateChange.publish(change)
}

/** Circuits by key, created on first use. */
export class CircuitRegistry {
  readonly #circuits = new Map<string, Circuit>()
  readonly #options: ResolvedCircuitBreakerOptions

  constructor (options: ResolvedCircuitBreakerOptions) {
    this.#options = options
  }

  /** The circuit of `key`, made closed if it is new. */
  get (key: string): Circuit {
    let circuit = this.#circuits.get(key)
    if (circuit === undefined) {
      if (this.#circuits.size >= this.#options.maxCircuits) this.#evict()
      circuit = new Circuit(key, this.#options, publish)
      this.#circuits.set(key, circuit)
    }
    return circuit
  }

  #evict (): void {
    for (const [key, circuit] of this.#circuits) {
      if (circuit.state === 'closed') {
        this.#circuits.delete(key)
        return
      }
    }
  }
}
