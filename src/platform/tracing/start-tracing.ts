/**
 * OpenTelemetry, started before anything it instruments is loaded (server.ts
 * imports this first, after dotenv): a span for each request (http, with the
 * route from express) and for each query (pg), the incoming W3C
 * `traceparent` honoured, exported over OTLP/HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT. With that variable unset, the SDK is never
 * even loaded: tracing off costs nothing. The standard OTEL_* variables
 * (service name, sampler, batch delay) apply as the SDK reads them.
 *
 * What a span may carry is what the instrumentations record by default: the
 * method, route, status, the statement's text with `$n` placeholders (never
 * its values: `enhancedDatabaseReporting` stays off), no header, no body.
 */
export interface Tracing {
  stop(): Promise<void>;
}

function start(): Tracing | undefined {
  if ((process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '') === '') return undefined;
  // Loaded only when tracing is on, so that tracing off loads nothing.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'customer-payment-profiles',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      // Probes are polled every few seconds: spans of them would drown the requests'.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => (request.url ?? '').startsWith('/health/') }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return { stop: () => sdk.shutdown() };
}

/** The running tracer, for the shutdown to flush; undefined when tracing is off. */
export const tracing: Tracing | undefined = start();
