/**
 * The OpenTelemetry trace SDK, set up only when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * (config.ts `tracing`): a NodeTracerProvider (AsyncLocalStorage context manager) with a
 * BatchSpanProcessor and an OTLP/HTTP exporter (JSON) to `<endpoint>/v1/traces` (OTLP
 * specification, "OTLP/HTTP"; OpenTelemetry SDK environment variables), the W3C Trace
 * Context propagator (`traceparent`, `tracestate`), and the resource's `service.name` from
 * OTEL_SERVICE_NAME. Without the setting nothing here runs and the SDK is never loaded: the
 * spans of kernel/spans.ts stay the API's no-ops.
 *
 * The provider is global to the process (the API has one), so setup is shared: the servers
 * of one process (the test suites start several) use one provider, and the last to close
 * shuts it down and unregisters it, after which a later start registers a new one.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { setTracingOn } from "../kernel/spans.js";

/** Where spans go and whose they are. */
export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL, no trailing slash; spans are posted to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME: the resource's `service.name`. */
  serviceName: string;
}

/** One server's use of the process's tracer provider. */
export interface Tracing {
  /** Exports every ended span now. @throws never; export failures are the exporter's to report (OpenTelemetry diag). */
  flush(): Promise<void>;
  /** Flushes and releases this server's use; the last release shuts the provider down and unregisters it. Idempotent. */
  close(): Promise<void>;
}

interface Provider {
  settings: TracingSettings;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The registered provider (or its registration under way) and how many servers use it. */
let shared: { provider: Promise<Provider>; settings: TracingSettings; users: number } | undefined;

/** Loads the SDK and registers a provider for `settings`. */
async function register(settings: TracingSettings): Promise<Provider> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { defaultResource, resourceFromAttributes }, { W3CTraceContextPropagator }, { ATTR_SERVICE_NAME }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/core"),
      import("@opentelemetry/semantic-conventions"),
    ]);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` }))],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  setTracingOn(true);
  return { settings, forceFlush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

/**
 * Starts tracing for one server: registers the process's provider on first use, or shares the
 * one registered already.
 * @throws Error if the process's provider was registered with other settings (one exporter per
 *   process); the SDK's own errors if it cannot be loaded.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  if (shared && (shared.settings.endpoint !== settings.endpoint || shared.settings.serviceName !== settings.serviceName)) {
    throw new Error(`tracing is already set up in this process for ${shared.settings.endpoint} (${shared.settings.serviceName})`);
  }
  shared ??= { provider: register(settings), settings, users: 0 };
  const mine = shared;
  mine.users++;
  let provider: Provider;
  try {
    provider = await mine.provider;
  } catch (err) {
    if (--mine.users === 0 && shared === mine) shared = undefined;
    throw err;
  }
  let closed = false;
  return {
    flush: () => provider.forceFlush(),
    async close() {
      if (closed) return;
      closed = true;
      await provider.forceFlush();
      if (--mine.users > 0 || shared !== mine) return;
      shared = undefined;
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Exports every ended span of the process's provider now (for tests, before they read what a
 * collector received); nothing when tracing is off.
 */
export async function flushTracing(): Promise<void> {
  if (shared) await (await shared.provider).forceFlush();
}
