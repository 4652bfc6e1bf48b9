/**
 * The part of OpenTelemetry's metrics API the HTTP client metrics record through, as structural
 * types, and the global MeterProvider of `@opentelemetry/api` loaded only when asked for: the
 * package is an optional peer, so conduit imports fine without it.
 * @module
 */

import { createRequire } from 'node:module'
import { NotSupportedError } from '../errors.js'

/** Attributes of one measurement. */
export type MetricAttributes = Record<string, string | number | boolean>

/** What conduit calls on a histogram (`Meter.createHistogram()`). */
export interface HistogramLike {
  /** Records one value. */
  record (value: number, attributes?: MetricAttributes): void
}

/** What conduit calls on an up-down counter (`Meter.createUpDownCounter()`). */
export interface UpDownCounterLike {
  /** Adds `value` (negative to subtract). */
  add (value: number, attributes?: MetricAttributes): void
}

/** The options conduit passes when it creates an instrument. */
export interface InstrumentOptionsLike {
  /** What the instrument measures. */
  description?: string
  /** Its unit, in UCUM (`s`, `By`, `{request}`). */
  unit?: string
  /** Hints for the SDK, such as the histogram's bucket boundaries. */
  advice?: {
    /** The histogram's bucket boundaries. */
    explicitBucketBoundaries?: number[]
  }
}

/** The part of an OpenTelemetry `Meter` conduit uses. */
export interface MeterLike {
  /** Creates a histogram. */
  createHistogram (name: string, options?: InstrumentOptionsLike): HistogramLike
  /** Creates an up-down counter. */
  createUpDownCounter (name: string, options?: InstrumentOptionsLike): UpDownCounterLike
}

/** The part of an OpenTelemetry `MeterProvider` conduit uses. */
export interface MeterProviderLike {
  /** The meter of the named instrumentation scope. */
  getMeter (name: string, version?: string): MeterLike
}

const require = createRequire(import.meta.url)

/** The MeterProvider registered with `@opentelemetry/api` (a no-op one when none is). */
export function globalMeterProvider (moduleName = '@opentelemetry/api'): MeterProviderLike {
  let api: { metrics: { getMeterProvider: () => MeterProviderLike } }
  try {
    api = require(moduleName) as typeof api
  } catch (err) {
    throw new NotSupportedError(
      `httpClientMetrics() without a meterProvider needs "${moduleName}" (npm install ${moduleName}), which could not be loaded: ${(err as Error).message}`
    )
  }
  return api.metrics.getMeterProvider()
}
