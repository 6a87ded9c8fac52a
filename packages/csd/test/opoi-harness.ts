// Real OPoI transactions on a wallet test node (test/wallet-harness.ts): a requester and a staker
// of the node's wallet, funded from mined coins, acting through the wallet's OPoI sends
// (src/opoi/wallet-actions.ts), one step per call, and regtest blocks mined on demand. For
// tests of what reads or announces the OPoI state (REST, WebSocket, ZeroMQ).
import { randomBytes, randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import {
  type Actor,
  OpoiKind,
  TASK_OPEN,
  actorFromScript,
  actorKey,
  addressToScript,
  commitmentHash,
  escrowAmount,
  requestIdFromUuid,
  sha256,
  toHex,
} from '@cs/consensus';
import type { BlockIndexEntry } from '../src/chain/block-index.ts';
import { sendMinerAction, sendPayout, sendRelease, sendRequest, sendStake } from '../src/opoi/wallet-actions.ts';
import type { SendOutcome } from '../src/wallet/send.ts';
import { type WalletTestNode, withWalletNode } from './wallet-harness.ts';

export interface Party {
  readonly address: string;
  readonly actor: Actor;
}

export interface OpoiTestNode {
  readonly node: WalletTestNode;
  readonly requester: Party;
  readonly staker: Party;
  /** Mines `n` blocks with the mempool's transactions; the entries of the new blocks. */
  mine(n?: number): Promise<BlockIndexEntry[]>;
  /** Mines until the tip is at `height`. */
  mineTo(height: number): Promise<void>;
  /** STAKE of the staker from one of its confirmed coins: the txid. */
  stake(): Promise<string>;
  /** A REQUEST of the requester with a new UUID (100 tokens at most, 0.01 coins): the UUID and txid. */
  request(): { uuid: string; txid: string };
  /** The staker's COMMIT to `response` as the answer of a request. */
  commit(uuid: string, response: string): string;
  /** The staker's REVEAL of what it committed to. */
  reveal(uuid: string): string;
  renew(): string;
  unstake(): string;
  /** The release of the staker's collateral (UNSTAKED): output 0 pays it back to the staker. */
  release(): string;
  /** The payout of a resolved request. */
  payout(uuid: string): string;
}

/** Tokens the staker claims for every response. */
export const TOKENS = 7;

function sent(outcome: SendOutcome): string {
  assert.equal(outcome.kind, 'sent', outcome.kind === 'rejected' ? JSON.stringify(outcome.failure) : '');
  return (outcome as { txid: string }).txid;
}

export async function withOpoiNode(fn: (o: OpoiTestNode) => Promise<void>): Promise<void> {
  await withWalletNode(async (node) => {
    const params = node.ctx.params;
    const party = async (): Promise<Party> => {
      const address = await node.call<string>('getnewaddress');
      return { address, actor: actorFromScript(addressToScript(address, params.address))! };
    };
    const requester = await party();
    const staker = await party();
    const payTo = await node.call<string>('getnewaddress');
    // 101 blocks make the first of them spendable; it funds both parties.
    await node.mine(101, payTo);
    await node.call('sendtoaddress', requester.address, 2);
    await node.call('sendtoaddress', staker.address, 5);
    await node.mine(1, payTo);

    const wallet = () => node.wallet;
    const salts = new Map<string, { response: Uint8Array; salt: Uint8Array }>();
    const idOf = (uuid: string) => Buffer.from(requestIdFromUuid(uuid));
    const mine = async (n = 1) => {
      const from = node.ctx.chain.height + 1;
      await node.mine(n, payTo);
      return Array.from({ length: n }, (_, i) => node.ctx.chain.atHeight(from + i)!);
    };
    const o: OpoiTestNode = {
      node,
      requester,
      staker,
      mine,
      async mineTo(height) {
        if (height > node.ctx.chain.height) await mine(height - node.ctx.chain.height);
      },
      async stake() {
        const [coin] = await node.call<{ txid: string; vout: number }[]>('listunspent', 1, 9999999, [staker.address]);
        return sent(sendStake(wallet(), { kind: OpoiKind.STAKE, miner: staker.actor, modelId: 'tiny', endpoint: '' }, coin, params.opoi.minStake));
      },
      request() {
        const uuid = randomUUID();
        const payload = {
          kind: OpoiKind.REQUEST,
          requestId: idOf(uuid),
          requester: requester.actor,
          promptHash: sha256(Buffer.from(`prompt ${uuid}`)),
          maxTokens: 100,
          payment: 1_000_000n,
          feePerToken: 1000n,
          promptTokenCount: 0,
          taskType: TASK_OPEN,
          model: 'tiny',
          taskClass: '',
        } as const;
        return { uuid, txid: sent(sendRequest(wallet(), payload, escrowAmount(payload.payment, payload.feePerToken, payload.maxTokens))) };
      },
      commit(uuid, response) {
        const answer = { response: sha256(Buffer.from(response)), salt: randomBytes(32) };
        salts.set(uuid, answer);
        const commitment = commitmentHash(idOf(uuid), staker.actor, answer.response, TOKENS, answer.salt);
        return sent(sendMinerAction(wallet(), { kind: OpoiKind.COMMIT, requestId: idOf(uuid), miner: staker.actor, commitment }));
      },
      reveal(uuid) {
        const { response, salt } = salts.get(uuid)!;
        const payload = {
          kind: OpoiKind.REVEAL,
          requestId: idOf(uuid),
          miner: staker.actor,
          responseHash: response,
          tokenCount: TOKENS,
          salt,
        } as const;
        return sent(sendMinerAction(wallet(), payload));
      },
      renew: () => sent(sendMinerAction(wallet(), { kind: OpoiKind.RENEW, miner: staker.actor })),
      unstake: () => sent(sendMinerAction(wallet(), { kind: OpoiKind.UNSTAKE, miner: staker.actor })),
      release: () => sent(sendRelease(wallet(), node.ctx.chain.opoi.stake(actorKey(staker.actor))!)),
      payout: (uuid) => sent(sendPayout(wallet(), node.ctx.chain.opoi.request(toHex(idOf(uuid)))!)),
    };
    await fn(o);
  });
}
