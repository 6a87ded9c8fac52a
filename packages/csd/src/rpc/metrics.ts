/**
 * The HTTP/RPC layer's Prometheus metrics. Series for each method are looked up once and kept,
 * so a call costs a few additions, not label-key building.
 */
import type { CounterSeries, HistogramSeries, MetricsRegistry } from '../metrics/registry.ts';
import type { RpcErrorCodeValue } from './errors.ts';

/** Seconds: from a cached in-memory answer (sub-millisecond) up to slow wallet or block calls. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The method label of calls to names that are not registered, so that clients cannot create series at will. */
export const UNKNOWN_METHOD = '(unknown)';

interface MethodSeries {
  readonly ok: CounterSeries;
  readonly error: CounterSeries;
  readonly latency: HistogramSeries;
}

export class RpcMetrics {
  readonly #calls;
  readonly #latency;
  readonly #errors;
  readonly #status;
  readonly #rateLimited: CounterSeries;
  readonly #authFailed: CounterSeries;
  readonly #byMethod = new Map<string, MethodSeries>();
  readonly #byStatus = new Map<number, CounterSeries>();

  constructor(registry: MetricsRegistry) {
    this.#calls = registry.counter({
      name: 'csd_rpc_requests_total',
      help: 'JSON-RPC calls by method and outcome (ok or error); a batch counts each call.',
      labelNames: ['method', 'outcome'],
    });
    this.#latency = registry.histogram({
      name: 'csd_rpc_request_duration_seconds',
      help: 'Time from argument checks to result of each JSON-RPC call, by method.',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
    });
    this.#errors = registry.counter({ name: 'csd_rpc_errors_total', help: 'JSON-RPC error replies by error code.', labelNames: ['code'] });
    this.#status = registry.counter({ name: 'csd_http_responses_total', help: 'HTTP responses by status code.', labelNames: ['code'] });
    this.#rateLimited = registry
      .counter({ name: 'csd_rpc_rate_limited_total', help: 'JSON-RPC requests refused with 429 by the per-client rate limit.' })
      .labels({});
    this.#authFailed = registry
      .counter({ name: 'csd_rpc_auth_failures_total', help: 'JSON-RPC requests refused with 401 (missing or wrong credentials).' })
      .labels({});
  }

  call(method: string, ok: boolean, seconds: number): void {
    let series = this.#byMethod.get(method);
    if (series === undefined) {
      series = {
        ok: this.#calls.labels({ method, outcome: 'ok' }),
        error: this.#calls.labels({ method, outcome: 'error' }),
        latency: this.#latency.labels({ method }),
      };
      this.#byMethod.set(method, series);
    }
    (ok ? series.ok : series.error).inc();
    series.latency.observe(seconds);
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
