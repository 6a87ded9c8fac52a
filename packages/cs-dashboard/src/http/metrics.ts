const label = (v: string) => v.replace(/["\\\n]/g, '_');

/** Prometheus counters of the dashboard's own HTTP API, in the text format the other programs serve. */
export class HttpMetrics {
  private readonly responses = new Map<string, number>();
  private readonly upstreamErrors = new Map<string, number>();

  response(route: string, status: number): void {
    const key = `route="${route}",status="${status}"`;
    this.responses.set(key, (this.responses.get(key) ?? 0) + 1);
  }

  upstreamError(program: string): void {
    this.upstreamErrors.set(program, (this.upstreamErrors.get(program) ?? 0) + 1);
  }

  /** The text of /metrics, with the gauges the caller measures now. */
  render(gauges: { liveClients: number; feedsUp: readonly boolean[]; nodeNames: readonly string[]; relayed: number }): string {
    const lines = [
      '# HELP cs_dashboard_http_responses_total Answers of the dashboard API by route and status.',
      '# TYPE cs_dashboard_http_responses_total counter',
      ...[...this.responses].map(([k, v]) => `cs_dashboard_http_responses_total{${k}} ${v}`),
      '# HELP cs_dashboard_upstream_errors_total Calls to a program that did not answer.',
      '# TYPE cs_dashboard_upstream_errors_total counter',
      ...[...this.upstreamErrors].map(([k, v]) => `cs_dashboard_upstream_errors_total{program="${k}"} ${v}`),
      '# HELP cs_dashboard_live_clients Browsers connected to /live.',
      '# TYPE cs_dashboard_live_clients gauge',
      `cs_dashboard_live_clients ${gauges.liveClients}`,
      "# HELP cs_dashboard_node_feed_up 1 while the node's WebSocket feed is connected.",
      '# TYPE cs_dashboard_node_feed_up gauge',
      ...gauges.nodeNames.map((n, i) => `cs_dashboard_node_feed_up{node="${label(n)}"} ${gauges.feedsUp[i] ? 1 : 0}`),
      '# HELP cs_dashboard_live_pushes_total Node pushes relayed to browsers.',
      '# TYPE cs_dashboard_live_pushes_total counter',
      `cs_dashboard_live_pushes_total ${gauges.relayed}`,
    ];
    return `${lines.join('\n')}\n`;
  }
}
