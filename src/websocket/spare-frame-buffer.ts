import { clearTimeout, setTimeout } from '../runtime/timers.js'
/**
 * One spare buffer for large outgoing frames. A megabyte taken fresh from the allocator for every
 * frame costs more than building the frame: glibc gives freed large blocks back to the kernel,
 * so each new one is faulted in page by page (reusing one halved the client's CPU per 1 MiB
 * echo round trip on Node 24). A frame whose bytes the socket copied out at once leaves its
 * buffer here, and the next large frame, from any connection, is built in it. The spare is
 * dropped once no frame used it for {@link SPARE_IDLE_MS}, so an idle process does not hold it.
 * @module
 */

/** Frames at least this long use the spare; smaller ones come from Node's buffer pool cheaply. */
export const SPARE_MIN_BYTES = 64 * 1024
/** The largest buffer kept as the spare: a rare huge frame is not held on to. */
export const SPARE_MAX_BYTES = 4 * 1024 * 1024 + 16
/** How long an unused spare is kept. */
export const SPARE_IDLE_MS = 5_000

let spare: ArrayBuffer | null = null
/** A frame took or returned the spare since the idle timer last looked. */
let spareUsed = false
let idleTimer: NodeJS.Timeout | null = null

/**
 * A buffer of `size` bytes for a frame: a view of the spare when it fits, else a new one. A large
 * one owns its memory and starts on a word boundary.
 */
export function takeFrameBuffer (size: number): Buffer {
  if (size < SPARE_MIN_BYTES) return Buffer.allocUnsafe(size)
  if (spare !== null && spare.byteLength >= size) {
    const buffer = Buffer.from(spare, 0, size)
    spare = null
    spareUsed = true
    return buffer
  }
  // Never from Node's shared pool (its size is the user's to raise): a large frame owns its memory.
  return Buffer.allocUnsafeSlow(size)
}

/**
 * `frame` (built in a buffer from {@link takeFrameBuffer}, at most three bytes in) was written and
 * nothing refers to its bytes any more (the socket copied them into the kernel or the TLS layer
 * during the write call): its memory may carry the next large frame.
 */
export function recycleFrameBuffer (frame: Buffer): void {
  if (frame.length < SPARE_MIN_BYTES) return
  const memory = frame.buffer
  if (!(memory instanceof ArrayBuffer) || frame.byteOffset > 3 || memory.byteLength > SPARE_MAX_BYTES) return
  if (spare === null || spare.byteLength < memory.byteLength) spare = memory
  spareUsed = true
  if (idleTimer === null) armIdleCheck()
}

function armIdleCheck (): void {
  idleTimer = setTimeout(spareFrameBufferIdlePeriod, SPARE_IDLE_MS)
  idleTimer.unref()
}

/**
 * One idle period (`SPARE_IDLE_MS`) has passed: a spare no frame used during it is let go. Run
 * by the runtime's own timer, which a test's fake clock does not move; exported for tests.
 */
export function spareFrameBufferIdlePeriod (): void {
  if (idleTimer !== null) clearTimeout(idleTimer)
  idleTimer = null
  if (!spareUsed) {
    spare = null
    return
  }
  spareUsed = false
  armIdleCheck()
}

/** Bytes the spare holds now (0 when there is none): for tests. */
export function spareFrameBufferBytes (): number {
  return spare === null ? 0 : spare.byteLength
}
