// Several real csd processes that follow one chain without P2P: blocks mined on the first are
// submitted to the others (submitblock), and every mempool transaction is relayed to all
// (sendrawtransaction), as peers would. The OPoI state digest is recorded after each height, so
// tests can check a reorg, a restart, a kill -9 or a -reindex against it.
import assert from 'node:assert/strict';
import { type Daemon, RpcCallError } from './daemon.ts';

export type Json = Record<string, unknown>;

/** The RPC error a call must fail with; its message is matched when `message` is given. */
export async function rpcError(p: Promise<unknown>, code: number, message?: RegExp): Promise<RpcCallError> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof RpcCallError)) throw e;
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return e;
  }
  throw new Error(`expected RPC error ${code}`);
}

/** The nodes of one chain, mined by the first, with every block and mempool transaction relayed to all. */
export class Net {
  /** state_digest after each height, as the first node saw it. */
  readonly digests = new Map<number, string>();
  constructor(
    readonly nodes: Daemon[],
    readonly payTo: string,
  ) {}

  get a(): Daemon {
    return this.nodes[0];
  }

  async relayMempools(): Promise<void> {
    for (const from of this.nodes) {
      for (const txid of await from.call<string[]>('getrawmempool')) {
        const hex = await from.call<string>('getrawtransaction', txid);
        for (const to of this.nodes) if (to !== from) await to.call('sendrawtransaction', hex).catch(() => undefined);
      }
    }
  }

  async syncBlocks(): Promise<void> {
    const tip = await this.a.call<number>('getblockcount');
    for (const to of this.nodes.slice(1)) {
      let fork = Math.min(tip, await to.call<number>('getblockcount'));
      while (fork > 0 && (await this.a.call('getblockhash', fork)) !== (await to.call('getblockhash', fork))) fork--;
      for (let h = fork + 1; h <= tip; h++) {
        await to.call('submitblock', await this.a.call('getblock', await this.a.call('getblockhash', h), 0));
      }
      assert.equal(await to.call('getbestblockhash'), await this.a.call('getbestblockhash'));
    }
  }

  /** Mines `n` blocks carrying everything the mempools hold, recording the OPoI digest after each. */
  async mine(n = 1): Promise<number> {
    await this.relayMempools();
    for (let i = 0; i < n; i++) {
      await this.a.call('generatetoaddress', 1, this.payTo);
      const stats = await this.a.call<Json>('getopoistats');
      this.digests.set(stats.height as number, stats.state_digest as string);
    }
    await this.syncBlocks();
    return this.a.call<number>('getblockcount');
  }

  async mineTo(height: number): Promise<void> {
    const now = await this.a.call<number>('getblockcount');
    if (height > now) await this.mine(height - now);
  }

  /** The OPoI state digest of every node; they must all equal `digest`. */
  async assertDigests(digest: string, when: string): Promise<void> {
    for (const [i, node] of this.nodes.entries()) {
      assert.equal((await node.call<Json>('getopoistats')).state_digest, digest, `node ${i} ${when}`);
    }
  }
}

/**
 * Stops and starts `node`, kills it with SIGKILL and starts it, then starts it with -reindex and
 * waits until it is back at `tip`; `check` runs after each, named for the step.
 */
export async function restartKillReindex(node: Daemon, tip: number, check: (when: string) => Promise<void>): Promise<void> {
  await node.call('stop');
  await node.exited();
  await node.start();
  await check('after a restart');
  await node.kill('SIGKILL');
  await node.start();
  await check('after kill -9');
  await node.call('stop');
  await node.exited();
  await node.start(['-reindex']);
  for (let i = 0; i < 300 && (await node.call<number>('getblockcount').catch(() => -1)) < tip; i++) await new Promise((res) => setTimeout(res, 100));
  await check('after -reindex');
}
