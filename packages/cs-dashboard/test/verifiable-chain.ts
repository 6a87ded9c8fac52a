// A VERIFIABLE request driven step by step over the node's RPC, for the dashboard's timeline test:
// the executor's commit and reveal, the PUBLISH, and each drawn auditor's verdict, each sent as
// soon as its window opens and then mined with generatetoaddress (nothing else mines meanwhile).
import { createHash, randomUUID } from 'node:crypto';
import { toHex, verifiableResponseHash } from '@cs/consensus';
import type { Chain } from '../../cs-bridge/test/bridge-harness.ts';

type Json = Record<string, unknown>;

export const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A confirmed coin of a new address of the node's wallet, holding `coins`. */
export async function coinOf(chain: Chain, coins: number): Promise<{ address: string; txid: string; vout: number }> {
  const address = await chain.node.call<string>('getnewaddress');
  await chain.node.call('sendtoaddress', address, coins);
  await chain.mine(1);
  const [coin] = await chain.node.call<{ txid: string; vout: number }[]>('listunspent', 1, 9_999_999, [address]);
  return { address, ...coin };
}

/** A staked address of the node's wallet serving `serves` (the STAKE is mined). */
export async function stakedServer(chain: Chain, serves: readonly string[]): Promise<string> {
  const coin = await coinOf(chain, 3);
  await chain.node.call('stakeopoi', coin.address, coin.txid, coin.vout, serves[0], '', serves);
  await chain.mine(1);
  return coin.address;
}

async function mineWhile(chain: Chain, id: string, until: (r: Json) => boolean, what: string): Promise<Json> {
  for (let i = 0; i < 40; i++) {
    const r = await chain.node.call<Json>('getopoirequest', id);
    if (until(r)) return r;
    await chain.mine(1);
  }
  throw new Error(`request ${id} never reached ${what}`);
}

export interface Answered {
  readonly id: string;
  readonly requester: string;
}

/**
 * A VERIFIABLE request for `manifest` bound to `executor`, answered with `tokens`/`text` and
 * published; every drawn auditor then reveals `verdict`, and the payout is claimed and mined.
 */
export async function verifiableToPayout(
  chain: Chain,
  opts: { manifest: string; executor: string; tokens: number[]; text: string; verdict: 'valid' | 'invalid' },
): Promise<Answered> {
  const node = chain.node;
  const id = randomUUID();
  const prompt = 'What is the capital of France?';
  const requester = (await coinOf(chain, 1)).address;
  await node.call('submitopoirequest', id, opts.manifest, sha256(prompt), 8, 0.01, requester, 0.0001, 'VERIFIABLE', 0, '', opts.executor, 1, 0.001);
  await chain.mine(1);
  const hash = toHex(verifiableResponseHash(opts.tokens, Buffer.from(opts.text)));
  const commit = await node.call<Json>('submitopoiresponsecommit', id, hash, opts.executor, null, opts.tokens.length);
  await chain.mine(1);
  await mineWhile(chain, id, (r) => r.commit_window_closed === true, 'the end of its commit window');
  await node.call('submitopoiresponse', id, hash, opts.executor, commit.commitment, opts.tokens.length, commit.nonce_hex);
  await mineWhile(chain, id, (r) => r.status === 'PUBLISHING', 'PUBLISHING');
  await node.call('publishopoianswer', id, prompt, opts.text, opts.tokens);
  await chain.mine(1);
  const drawn = async () => (await node.call<{ auditors: { address: string }[] }>('getopoiaudit', id)).auditors;
  while ((await drawn()).length === 0) await chain.mine(1);
  const salts = new Map<string, string>();
  for (const { address } of await drawn())
    salts.set(address, (await node.call<Json>('submitopoiverdictcommit', id, address, opts.verdict)).salt_hex as string);
  await chain.mine(1);
  const audit = await node.call<{ commit_close: number; reveal_deadline: number }>('getopoiaudit', id);
  while ((await node.call<number>('getblockcount')) < audit.commit_close) await chain.mine(1);
  for (const [address, salt] of salts) await node.call('submitopoiverdict', id, address, opts.verdict, salt);
  await mineWhile(chain, id, (r) => r.status !== 'AUDITING', 'its outcome');
  await node.call('claimopoipayout', id);
  await chain.mine(1);
  return { id, requester };
}
