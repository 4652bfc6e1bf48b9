/**
 * Heap settling: keeps large body buffers in pages the process already has. Only the connection
 * layer (a socket's large read, in the HTTP/1.1 and WebSocket readers) and the replay layer (a
 * large body played from memory, whatever store or snapshot held it) call it; the architecture
 * test holds everything else to that.
 *
 * Large reads end up in fresh buffers from the C heap (a socket's own 64 KiB reads, the body
 * chunks copied out of the shared read buffer, a WebSocket message's buffer), and the garbage
 * collector frees those buffers in batches (tens of MiB at once when a process reads large
 * bodies or messages and makes little other garbage). glibc's default is to hand any free heap
 * top above 128 KiB back to the kernel, so after each batch the heap shrinks, and the next reads
 * fault in new pages: measured at 70 to 200 page faults per 1 MiB response, which doubled the
 * kernel time of a large download. glibc raises that limit by itself (to twice the block's
 * size) the first time it frees a mapped block larger than its current mapping threshold; one
 * such block, allocated and dropped once, makes the heap keep up to 64 MiB of free pages for
 * reuse instead.
 *
 * The block is dropped only once a connection reads a large chunk or a large body is replayed
 * from memory (cache hits and snapshots hand out buffers freed in the same batches): a process
 * that only ever handles small responses never frees buffers in such batches, and would pay for
 * the block with nothing in return (V8 counts it as external memory, which can bring a collection
 * forward).
 * @module
 */

/**
 * Size of the block: just under the 32 MiB cap on the blocks whose release moves glibc's limits
 * (its header and page rounding included), which moves the limit to about 64 MiB, the size of
 * the largest batches of read buffers the garbage collector frees at once.
 */
const THRESHOLD_BLOCK_BYTES = 32 * 1024 * 1024 - 64 * 1024

/**
 * A socket read at least this large means full-size read buffers (64 KiB) are in use: the
 * process downloads bodies large enough for the batches the block is for.
 */
export const LARGE_READ_BYTES = 32 * 1024

let settled = false

/** Whether the block was dropped in this process (or its settling was given up). */
export function readBuffersSettled (): boolean {
  return settled
}

/**
 * Once per process, on Linux, allocates and drops one block that leads glibc to keep freed read
 * buffers for reuse. The block is never written, so it costs address space only, never memory.
 * Elsewhere, or after the first call, does nothing. Returns whether this call did the work.
 */
export function keepReadBuffersInHeap (): boolean {
  if (settled) return false
  settled = true
  if (process.platform !== 'linux') return false
  try {
    Buffer.allocUnsafeSlow(THRESHOLD_BLOCK_BYTES)
  } catch {
    // A process whose address space is capped (ulimit -v) may refuse the block: it then keeps
    // glibc's defaults, which are only slower.
    return false
  }
  return true
}

/**
 * Settles the heap once the chunks of a body played from memory add up to a large read: the
 * replay layer's one call, so no store or snapshot format has to know about the heap.
 */
export function keepPlayedBuffersInHeap (chunks: readonly Buffer[]): void {
  if (settled) return
  let bytes = 0
  for (const chunk of chunks) bytes += chunk.length
  if (bytes >= LARGE_READ_BYTES) keepReadBuffersInHeap()
}
