import type { NodeOptions } from '../config/node-config.ts';

/** The publisher topics: Core's, in the order Core creates its notifiers (its factory map, by name), then ours. */
export const ZMQ_TOPICS = ['hashblock', 'hashtx', 'rawblock', 'rawtx', 'sequence', 'opoi'] as const;
export type ZmqTopic = (typeof ZMQ_TOPICS)[number];

/** One configured notifier: a topic published on one endpoint (Core's CZMQAbstractNotifier). */
export interface ZmqNotification {
  readonly topic: ZmqTopic;
  /** The endpoint as configured: tcp://host:port or ipc://path. */
  readonly address: string;
  /** -zmqpub<topic>hwm. */
  readonly hwm: number;
}

/**
 * Every -zmqpub<topic> endpoint, topic by topic in Core's order, endpoints in the order given:
 * the order of getzmqnotifications, and of the messages one event causes.
 */
export function zmqNotifications(options: NodeOptions): ZmqNotification[] {
  return ZMQ_TOPICS.flatMap((topic) => options[`zmqpub${topic}`].map((address) => ({ topic, address, hwm: options[`zmqpub${topic}hwm`] })));
}
