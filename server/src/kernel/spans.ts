/**
 * Spans for the code that serves requests, written against `@opentelemetry/api` alone
 * (OpenTelemetry Tracing API, manual instrumentation). The SDK (provider, exporter) is set up
 * by observability/tracing.ts when OTEL_EXPORTER_OTLP_ENDPOINT is set; until then
 * {@link tracingOn} is false and every helper here calls its function directly: no span
 * object, no context switch, nothing loaded beyond the API's no-op.
 */
import { SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { ATTR_DB_COLLECTION_NAME, ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME, ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";

/** The instrumentation scope of every span of Tollgate. */
const SCOPE = "tollgate";

let on = false;

/** True while a tracer provider of observability/tracing.ts is registered. */
export function tracingOn(): boolean {
  return on;
}

/** Called by observability/tracing.ts only, when it registers (true) or removes (false) its provider. */
export function setTracingOn(value: boolean): void {
  on = value;
}

/**
 * The tracer of Tollgate's spans. Looked up on each use (a cheap map lookup), so that a
 * provider registered after a previous one was shut down (tests start several servers) is used.
 */
export function tracer(): Tracer {
  return trace.getTracer(SCOPE);
}

/**
 * Marks `span` as failed by `err` (OpenTelemetry "Recording errors"): the exception event,
 * status ERROR and `error.type` (the error's class name).
 */
export function failSpan(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setAttribute(ATTR_ERROR_TYPE, error.name === "Error" ? error.constructor.name : error.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/**
 * Runs `fn` in a new active span named `name` (a child of the active one) when tracing is on,
 * or just runs it when off.
 * @param attributes - the span's attributes (semantic convention names where there is one).
 * @returns what `fn` returns. @throws what `fn` throws, after marking the span failed ({@link failSpan}).
 */
export async function inSpan<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!on) return fn();
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * `stores` with every method of each of its object-valued members (a set of store ports:
 * `stores.tokens.insert(...)`) run in a span named `<method> <store>`, with `db.system.name`,
 * `db.collection.name` (the store) and `db.operation.name` (the method) (OpenTelemetry semantic
 * conventions for database client spans). Functions directly on `stores` (`transaction`) are
 * not wrapped. The wrappers are made once per method, on first use; a method that returns no
 * promise is called as it is, outside any span.
 * @param system - `db.system.name`: "sqlite" or "postgresql".
 * @returns a Proxy over `stores`; `stores` itself is not changed.
 */
export function tracedStores<T extends object>(stores: T, system: string): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(stores, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "object" || value === null) return value;
      let proxy = wrapped.get(prop);
      if (!proxy) {
        proxy = tracedStore(value, String(prop), system);
        wrapped.set(prop, proxy);
      }
      return proxy;
    },
  });
}

/** One store of {@link tracedStores}. */
function tracedStore(store: object, name: string, system: string): object {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      let method = methods.get(prop);
      if (!method) {
        const operation = String(prop);
        const attributes = { [ATTR_DB_SYSTEM_NAME]: system, [ATTR_DB_COLLECTION_NAME]: name, [ATTR_DB_OPERATION_NAME]: operation };
        method = (...args: unknown[]) => {
          if (!on) return value.apply(target, args);
          return tracer().startActiveSpan(`${operation} ${name}`, { attributes }, (span) => {
            let result: unknown;
            try {
              result = value.apply(target, args);
            } catch (err) {
              failSpan(span, err);
              span.end();
              throw err;
            }
            if (!(result instanceof Promise)) {
              span.end();
              return result;
            }
            return result.then(
              (resolved) => {
                span.end();
                return resolved;
              },
              (err: unknown) => {
                failSpan(span, err);
                span.end();
                throw err;
              },
            );
          });
        };
        methods.set(prop, method);
      }
      return method;
    },
  });
}
