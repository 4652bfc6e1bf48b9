/**
 * Which spelling of error codes conduit's errors carry, process-wide: conduit's own (`LIB_ERR_*`,
 * the default and the contract) or undici's (`UND_ERR_*`), for an application or library moved
 * from undici that decides what to do by `err.code`. Chosen with the `CONDUIT_ERROR_CODES`
 * environment variable (`undici` or `conduit`) before the process starts, or with
 * `setErrorCodeStyle()` before the first request.
 * @module
 */

/** `'conduit'`: codes start with `LIB_`; `'undici'`: the codes undici gives the same errors. */
export type ErrorCodeStyle = 'conduit' | 'undici'

/** The environment variable read once, when conduit loads. */
export const ERROR_CODE_STYLE_ENV = 'CONDUIT_ERROR_CODES'

const STYLES: readonly ErrorCodeStyle[] = ['conduit', 'undici']

const listeners: Array<(style: ErrorCodeStyle) => void> = []

let current: ErrorCodeStyle = styleFromEnvironment(process.env[ERROR_CODE_STYLE_ENV])

function styleFromEnvironment (value: string | undefined): ErrorCodeStyle {
  if (value === undefined || value === '') return 'conduit'
  const style = value.trim().toLowerCase()
  if (isErrorCodeStyle(style)) return style
  // Refusing to load would take the application down for a typo in its environment.
  process.emitWarning(`${ERROR_CODE_STYLE_ENV} must be 'conduit' or 'undici', got ${JSON.stringify(value)}; using 'conduit'`, { code: 'CONDUIT_ERROR_CODES' })
  return 'conduit'
}

/** The style errors created from now on carry. */
export function errorCodeStyle (): ErrorCodeStyle {
  return current
}

/** Makes `style` the style of errors created from now on; `setErrorCodeStyle()` is the checked public form. */
export function applyErrorCodeStyle (style: ErrorCodeStyle): void {
  current = style
  for (const listener of listeners) listener(style)
}

/** True for the names of the styles. */
export function isErrorCodeStyle (value: unknown): value is ErrorCodeStyle {
  return (STYLES as readonly unknown[]).includes(value)
}

/** Calls `listener` with the current style now and whenever it changes. */
export function onErrorCodeStyle (listener: (style: ErrorCodeStyle) => void): void {
  listeners.push(listener)
  listener(current)
}
