/**
 * The Prometheus metrics of the RPC layer: per-method call counts and latency (recorded by the
 * registry, which runs the calls) and HTTP outcomes (recorded by the server). Series are looked
 * up once and kept, so recording costs a few additions, not label-key building.
 */
import type { CounterSeries, HistogramSeries, MetricsRegistry } from '@cs/runtime/metrics';
import type { RpcErrorCodeValue } from './errors.ts';

/** Seconds: from a cached in-memory answer (sub-millisecond) up to slow wallet or block calls. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The method label of calls to names that are not registered, so that clients cannot create series at will. */
export const UNKNOWN_METHOD = '(unknown)';

/** One method's series. */
export class MethodSeries {
  constructor(
    private readonly ok: CounterSeries,
    private readonly failed: CounterSeries,
    private readonly latency: HistogramSeries,
  ) {}

  /** A call that began at `started` (performance.now()) has ended, well or not. */
  record(ok: boolean, started: number): void {
    (ok ? this.ok : this.failed).inc();
    this.latency.observe((performance.now() - started) / 1000);
  }
}

export class CallMetrics {
  readonly #calls;
  readonly #latency;

  constructor(registry: MetricsRegistry) {
    this.#calls = registry.counter({
      name: 'csd_rpc_requests_total',
      help: 'JSON-RPC calls by method and outcome (ok or error); a batch counts each call.',
      labelNames: ['method', 'outcome'],
    });
    this.#latency = registry.histogram({
      name: 'csd_rpc_request_duration_seconds',
      help: 'Time from lookup to result of each JSON-RPC call, by method.',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
    });
  }

  forMethod(method: string): MethodSeries {
    return new MethodSeries(
      this.#calls.labels({ method, outcome: 'ok' }),
      this.#calls.labels({ method, outcome: 'error' }),
      this.#latency.labels({ method }),
    );
  }
}

export class HttpMetrics {
  readonly #errors;
  readonly #status;
  readonly #rateLimited: CounterSeries;
  readonly #authFailed: CounterSeries;
  readonly #byStatus = new Map<number, CounterSeries>();

  constructor(registry: MetricsRegistry) {
    this.#errors = registry.counter({ name: 'csd_rpc_errors_total', help: 'JSON-RPC error replies by error code.', labelNames: ['code'] });
    this.#status = registry.counter({ name: 'csd_http_responses_total', help: 'HTTP responses by status code.', labelNames: ['code'] });
    this.#rateLimited = registry
      .counter({ name: 'csd_rpc_rate_limited_total', help: 'JSON-RPC requests refused with 429 by the per-client rate limit.' })
      .labels({});
    this.#authFailed = registry
      .counter({ name: 'csd_rpc_auth_failures_total', help: 'JSON-RPC requests refused with 401 (missing or wrong credentials).' })
      .labels({});
  }

  error(code: RpcErrorCodeValue): void {
    this.#errors.inc({ code: String(code) });
  }

  response(status: number): void {
    let series = this.#byStatus.get(status);
    if (series === undefined) {
      series = this.#status.labels({ code: String(status) });
      this.#byStatus.set(status, series);
    }
    series.inc();
  }

  rateLimited(): void {
    this.#rateLimited.inc();
  }

  authFailed(): void {
    this.#authFailed.inc();
  }
}
