/**
 * The `onopen` / `onmessage` / `onerror` / `onclose` attributes: each holds one listener,
 * registered on the target like any other, and replaced or removed when the attribute is set.
 * @module
 */

/** Event handler attributes of one target. */
export class EventHandlerSlots {
  readonly #target: EventTarget
  readonly #handlers = new Map<string, (event: Event) => void>()

  constructor (target: EventTarget) {
    this.#target = target
  }

  /** The handler set for `type`, or null. */
  get (type: string): ((event: Event) => void) | null {
    return this.#handlers.get(type) ?? null
  }

  /** Sets (a function) or clears (anything else) the handler for `type`. */
  set (type: string, handler: unknown): void {
    const previous = this.#handlers.get(type)
    if (previous !== undefined) {
      this.#target.removeEventListener(type, previous)
      this.#handlers.delete(type)
    }
    if (typeof handler === 'function') {
      const listener = handler as (event: Event) => void
      this.#handlers.set(type, listener)
      this.#target.addEventListener(type, listener)
    }
  }
}
