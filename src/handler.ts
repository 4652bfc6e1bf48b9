/**
 * The dispatch contract and the helpers for interceptor authors, in one import: the hook and
 * option types, {@link DecoratorHandler} (the forwarding base every interceptor handler
 * extends), {@link SimpleController} and {@link failDispatch}.
 * @module
 */

export type {
  IncomingHeaders,
  OutgoingHeaders,
  DispatchBody,
  DispatchOptions,
  AbortSignalLike,
  DispatchController,
  DispatchHandler,
  LegacyDispatchHandler,
  Dispatch,
  Interceptor,
  DispatchLifecycle,
  DispatchTarget
} from './contracts/dispatch-contract.js'
export { SimpleController } from './handlers/simple-controller.js'
export { DecoratorHandler } from './handlers/decorator-handler.js'
export { failDispatch } from './handlers/fail-dispatch.js'
export { isLegacyHandler, toRawHeaders, toDispatchHandler, LegacyHandlerAdapter } from './handlers/legacy-handler.js'
