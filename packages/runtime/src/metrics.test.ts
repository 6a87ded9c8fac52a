import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from './metrics.ts';

test('counters, gauges and histograms render in the Prometheus text format', () => {
  const registry = new MetricsRegistry();
  const requests = registry.counter({ name: 'app_requests_total', help: 'Requests.', labelNames: ['method', 'outcome'] });
  const up = registry.gauge({ name: 'app_up', help: 'Whether the app is up.' });
  const latency = registry.histogram({ name: 'app_latency_seconds', help: 'Latency.', labelNames: ['method'], buckets: [0.1, 1] });
  requests.inc({ method: 'a', outcome: 'ok' });
  requests.inc({ method: 'a', outcome: 'ok' }, 2);
  requests.labels({ method: 'b', outcome: 'error' }).inc();
  up.set({}, 1);
  for (const v of [0.05, 0.1, 0.5, 3]) latency.observe({ method: 'a' }, v);
  assert.equal(
    registry.render(),
    [
      '# HELP app_requests_total Requests.',
      '# TYPE app_requests_total counter',
      'app_requests_total{method="a",outcome="ok"} 3',
      'app_requests_total{method="b",outcome="error"} 1',
      '# HELP app_up Whether the app is up.',
      '# TYPE app_up gauge',
      'app_up 1',
      '# HELP app_latency_seconds Latency.',
      '# TYPE app_latency_seconds histogram',
      'app_latency_seconds_bucket{method="a",le="0.1"} 2',
      'app_latency_seconds_bucket{method="a",le="1"} 3',
      'app_latency_seconds_bucket{method="a",le="+Inf"} 4',
      'app_latency_seconds_sum{method="a"} 3.65',
      'app_latency_seconds_count{method="a"} 4',
      '',
    ].join('\n'),
  );
});

test('metrics without labels show at zero before any update; labelled ones show nothing yet', () => {
  const registry = new MetricsRegistry();
  registry.counter({ name: 'a_total', help: 'A.' });
  registry.counter({ name: 'b_total', help: 'B.', labelNames: ['x'] });
  registry.histogram({ name: 'c_seconds', help: 'C.', buckets: [1] });
  assert.equal(
    registry.render(),
    [
      '# HELP a_total A.',
      '# TYPE a_total counter',
      'a_total 0',
      '# HELP b_total B.',
      '# TYPE b_total counter',
      '# HELP c_seconds C.',
      '# TYPE c_seconds histogram',
      'c_seconds_bucket{le="1"} 0',
      'c_seconds_bucket{le="+Inf"} 0',
      'c_seconds_sum 0',
      'c_seconds_count 0',
      '',
    ].join('\n'),
  );
});

test('label values and help text are escaped; gauges move both ways', () => {
  const registry = new MetricsRegistry();
  const g = registry.gauge({ name: 'g', help: 'back\\slash\nnewline', labelNames: ['path'] });
  const s = g.labels({ path: 'a"b\\c\nd' });
  s.inc(5);
  s.dec(2);
  assert.equal(registry.render(), '# HELP g back\\\\slash\\nnewline\n# TYPE g gauge\ng{path="a\\"b\\\\c\\nd"} 3\n');
});

test('mistakes in metric definitions and updates are refused', () => {
  const registry = new MetricsRegistry();
  const c = registry.counter({ name: 'ok_total', help: 'x', labelNames: ['a'] });
  assert.throws(() => registry.counter({ name: 'ok_total', help: 'x' }), /twice/);
  assert.throws(() => registry.counter({ name: '1bad', help: 'x' }), /invalid metric name/);
  assert.throws(() => registry.counter({ name: 'x_total', help: 'x', labelNames: ['__reserved'] }), /invalid label/);
  assert.throws(() => registry.histogram({ name: 'h', help: 'x', labelNames: ['le'], buckets: [1] }), /reserved/);
  assert.throws(() => registry.histogram({ name: 'h2', help: 'x', buckets: [2, 1] }), /ascending/);
  assert.throws(() => c.inc({ a: 'x' }, -1), /only goes up/);
  assert.throws(() => c.inc({} as { a: string }), /label a missing/);
  assert.throws(() => c.inc({ a: 'x', b: 'y' } as { a: string }), /unexpected labels/);
});
