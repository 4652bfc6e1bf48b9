/**
 * Structural equivalents of the DOM types conduit's declarations name, so a project compiles
 * against them without `lib: dom` (as undici's declarations do).
 * @module
 */

/** The members every event constructor reads from its init dictionary. */
export interface EventInit {
  /** Whether the event bubbles. */
  bubbles?: boolean
  /** Whether `preventDefault()` may cancel it. */
  cancelable?: boolean
  /** Whether it crosses a shadow root. */
  composed?: boolean
}

/** Bytes as WebIDL's `BufferSource`: an ArrayBuffer or a view of one. */
export type BufferSource = ArrayBufferView | ArrayBuffer
