/**
 * `interceptors.decompress()`: decodes gzip, x-gzip, deflate, br (and zstd where the runtime
 * has it) response bodies, stacked codings included, with the decoders fetch() uses.
 * Decisions are logged with `NODE_DEBUG=conduit:decompress`.
 * @module
 */

import type { Dispatch, DispatchHandler, DispatchOptions, Interceptor } from '../../src/handler.js'
import { DecompressHandler } from './decompress-handler.js'
import { resolveDecompressOptions } from './options.js'
import type { DecompressInterceptorOptions } from './options.js'

export type { DecompressInterceptorOptions } from './options.js'

/**
 * The decompress interceptor. A decoded response loses its `content-encoding` and
 * `content-length` headers; an unknown coding is passed through untouched; a corrupt or cut
 * short body fails the request with the decoder's error. Bad options throw an `InvalidArgumentError`.
 * @example
 * import { Agent, interceptors } from 'conduit'
 * const agent = new Agent().compose(interceptors.decompress())
 * const { body } = await agent.request({ origin: 'http://127.0.0.1:3000', path: '/', method: 'GET', headers: { 'accept-encoding': 'gzip, br' } })
 */
export function decompress (options?: DecompressInterceptorOptions): Interceptor {
  const resolved = resolveDecompressOptions(options)
  return (dispatch: Dispatch): Dispatch => function decompressingDispatch (opts: DispatchOptions, handler: DispatchHandler): boolean {
    if (typeof opts !== 'object' || opts === null || opts.upgrade != null) return dispatch(opts, handler)
    return dispatch(opts, new DecompressHandler(handler, resolved, opts.method))
  }
}
