/**
 * Loaded first by the benchmark client processes: with `BENCH_OTEL=1` in the environment (set by
 * `npm run bench -- --otel`) it registers OpenTelemetry's tracer provider and its undici
 * instrumentation, as a traced service runs, so every request makes a client span and carries a
 * `traceparent`. Spans are batched and then dropped: the export is not what is measured.
 * @module
 */

import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'

/** Accepts every batch and keeps nothing. */
class DroppingExporter implements SpanExporter {
  export (_spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    done({ code: 0 })
  }

  async shutdown (): Promise<void> {}
}

if (process.env.BENCH_OTEL === '1') {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node')
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base')
  const { UndiciInstrumentation } = await import('@opentelemetry/instrumentation-undici')
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DroppingExporter())] })
  provider.register()
  const instrumentation = new UndiciInstrumentation()
  instrumentation.setTracerProvider(provider)
  instrumentation.enable()
}
