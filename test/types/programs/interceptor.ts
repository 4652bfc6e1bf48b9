// A custom interceptor typed with Dispatcher.*, and a DecoratorHandler subclass that adds a
// header to the response, passing on Node's IncomingHttpHeaders.
import type { IncomingHttpHeaders } from 'node:http'
import { Agent, DecoratorHandler, Dispatcher } from 'undici'

class ElapsedHandler extends DecoratorHandler {
  readonly #handler: Dispatcher.DispatchHandler
  readonly #started = Date.now()

  constructor (handler: Dispatcher.DispatchHandler) {
    super(handler)
    this.#handler = handler
  }

  onResponseStart (controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    const elapsed: IncomingHttpHeaders = { ...headers, 'x-elapsed-ms': String(Date.now() - this.#started) }
    this.#handler.onResponseStart?.(controller, statusCode, elapsed, statusMessage)
  }
}

export function elapsed (): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch: Dispatcher.Dispatch): Dispatcher.Dispatch => {
    return (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean => dispatch(opts, new ElapsedHandler(handler))
  }
}

export const agent: Dispatcher.ComposedDispatcher = new Agent({ connections: 2 }).compose(elapsed())
