/**
 * The clocks an HTTP/2 session keeps besides its streams' own: the wait for the server's
 * SETTINGS ACK (RFC 9113 section 6.5.3) and the keep-alive PING with its answer deadline. They
 * run on the runtime's own timers and never hold the process open.
 * @module
 */

import { clearTimeout, setTimeout } from '../../runtime/timers.js'

/** What the timers ask of their session. */
export interface SessionTimerHooks {
  /** Sends a keep-alive PING and flushes it; `onAck` runs when the server answers. */
  ping: (onAck: () => void) => void
  /** No SETTINGS ACK came within the timeout: a connection error. */
  settingsTimedOut: () => void
  /** A keep-alive PING went unanswered within the timeout: the session is gone. */
  pingTimedOut: () => void
}

/** The limits the timers keep, in milliseconds (a `pingInterval` of 0 sends no keep-alive). */
export interface SessionTimerLimits { settingsTimeout: number, pingInterval: number, pingTimeout: number }

/** The SETTINGS ACK and keep-alive timers of one session. */
export class SessionTimers {
  readonly #hooks: SessionTimerHooks
  readonly #limits: SessionTimerLimits
  #settingsUnacknowledged = 0
  #settingsTimer: ReturnType<typeof setTimeout> | null = null
  #keepAliveTimer: ReturnType<typeof setTimeout> | null = null
  #keepAliveDeadline: ReturnType<typeof setTimeout> | null = null
  #stopped = false

  constructor (hooks: SessionTimerHooks, limits: SessionTimerLimits) {
    this.#hooks = hooks
    this.#limits = limits
  }

  /** SETTINGS not yet acknowledged. */
  get settingsUnacknowledged (): number {
    return this.#settingsUnacknowledged
  }

  /** A SETTINGS frame went out: the ACK is awaited (one timer for all outstanding). */
  settingsSent (): void {
    this.#settingsUnacknowledged++
    if (this.#settingsTimer !== null || this.#stopped) return
    this.#settingsTimer = setTimeout(() => {
      this.#settingsTimer = null
      this.#hooks.settingsTimedOut()
    }, this.#limits.settingsTimeout)
    this.#settingsTimer.unref?.()
  }

  /** A SETTINGS ACK came: the timer stops once every SETTINGS sent is acknowledged. */
  settingsAcked (): void {
    if (--this.#settingsUnacknowledged === 0) this.#clearSettingsTimer()
  }

  /** Starts the keep-alive PINGs, when the session has an interval. */
  startKeepAlive (): void {
    if (this.#limits.pingInterval > 0 && !this.#stopped) this.#scheduleKeepAlive()
  }

  /** Stops every timer for good: the session ended. */
  stop (): void {
    this.#stopped = true
    this.#clearSettingsTimer()
    if (this.#keepAliveTimer !== null) clearTimeout(this.#keepAliveTimer)
    if (this.#keepAliveDeadline !== null) clearTimeout(this.#keepAliveDeadline)
    this.#keepAliveTimer = null
    this.#keepAliveDeadline = null
  }

  #clearSettingsTimer (): void {
    if (this.#settingsTimer !== null) clearTimeout(this.#settingsTimer)
    this.#settingsTimer = null
  }

  #scheduleKeepAlive (): void {
    this.#keepAliveTimer = setTimeout(() => {
      if (this.#stopped) return
      this.#hooks.ping(() => {
        if (this.#keepAliveDeadline !== null) clearTimeout(this.#keepAliveDeadline)
        this.#keepAliveDeadline = null
        if (!this.#stopped) this.#scheduleKeepAlive()
      })
      if (this.#stopped) return
      this.#keepAliveDeadline = setTimeout(() => { this.#hooks.pingTimedOut() }, this.#limits.pingTimeout)
      this.#keepAliveDeadline.unref?.()
    }, this.#limits.pingInterval)
    this.#keepAliveTimer.unref?.()
  }
}
