// VERIFIABLE questions on a network `npm run network` brought up (network-harness.ts): a REQUEST
// bound to bridge 1 from a fresh requester of node 1's wallet, the prompt handed to bridge 1, the
// lifecycle followed on node 1 to its payout, and the payout's outputs read as base units.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEnvFile } from '@cs/bridge/setup';
import { RpcClient, type RpcResult } from '@cs/client';
import { eventually } from '../packages/cs-pool/test/pool-harness.ts';
import type { NetworkRun } from './network-harness.ts';

export const sats = (coins: number) => Math.round(coins * 1e8);

/** What a question costs, in coins: sent as submitopoirequest's payment, fee_per_token and audit_fee. */
export const PRICE = { payment: 0.01, feePerToken: 0.0001, auditFee: 0.001, maxTokens: 8, quorum: 1 } as const;

/** The escrow of a question at PRICE, base units: payment + max_tokens × fee_per_token + quorum × audit_fee. */
export const ESCROW = sats(PRICE.payment) + PRICE.maxTokens * sats(PRICE.feePerToken) + PRICE.quorum * sats(PRICE.auditFee);

export interface Asked {
  readonly id: string;
  readonly requester: string;
}

export function bridgeEnv(run: NetworkRun, n: 1 | 2): Record<string, string> {
  return readEnvFile(join(run.datadir, n === 1 ? 'bridge/.env' : `bridge${n}/.env`));
}

export function manifestId(run: NetworkRun): string {
  const id = (JSON.parse(readFileSync(join(run.datadir, 'network.json'), 'utf8')) as { manifestId?: string }).manifestId;
  if (!id) throw new Error('the network registered no manifest');
  return id;
}

export function node(run: NetworkRun, n: 1 | 2): RpcClient {
  const base = (JSON.parse(readFileSync(join(run.datadir, 'network.json'), 'utf8')) as { basePort: number }).basePort;
  return new RpcClient({ url: `http://127.0.0.1:${base + (n === 1 ? 0 : 10)}`, auth: { cookieFile: join(run.datadir, `node${n}/regtest/.cookie`) } });
}

/** A VERIFIABLE question for the network's manifest, bound to bridge 1, its prompt handed to bridge 1 once the REQUEST is mined. */
export async function askVerifiable(run: NetworkRun, prompt: string): Promise<Asked> {
  const id = randomUUID();
  const rpc = node(run, 1);
  let requester: string;
  try {
    requester = await rpc.call('getnewaddress', ['requester']);
    await rpc.call('sendtoaddress', [requester, 1]);
    await eventually(
      async () => ((await rpc.call('listunspent', [1, 9_999_999, [requester]])).length > 0 ? true : undefined),
      "the requester's funding mined",
      300_000,
    );
    const hash = createHash('sha256').update(prompt).digest('hex');
    const { payment, feePerToken, maxTokens, quorum, auditFee } = PRICE;
    const executor = bridgeEnv(run, 1).OPOI_ADDRESSES;
    await rpc.call('submitopoirequest', [
      id,
      manifestId(run),
      hash,
      maxTokens,
      payment,
      requester,
      feePerToken,
      'VERIFIABLE',
      0,
      '',
      executor,
      quorum,
      auditFee,
    ]);
  } finally {
    rpc.close();
  }
  const key = bridgeEnv(run, 1).OPOI_REQUESTER_API_KEY;
  // The bridge answers 404 until the REQUEST is mined, and 429 past 60 calls a minute: retry both.
  await eventually(
    async () => {
      const r = await run.bridgeApi<{ error?: string }>('/svc/opoi/prompt', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-opoi-api-key': key },
        body: JSON.stringify({ request_id: id, prompt }),
      });
      if (r.status === 404 || r.status === 429) return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1_000));
      if (r.status !== 200) throw new Error(`bridge 1 refused the prompt (${r.status}): ${JSON.stringify(r.body)}`);
      return true;
    },
    'bridge 1 to take the prompt',
    300_000,
  );
  return { id, requester };
}

export type Request = RpcResult<'getopoirequest'>;

/** Polls node 1 until `done` holds for the request (the miners find the blocks); the last state is in the timeout's message. */
export async function untilRequest(run: NetworkRun, id: string, done: (r: Request) => boolean, what: string, timeoutMs: number): Promise<Request> {
  const rpc = node(run, 1);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const r = await rpc.call('getopoirequest', [id]);
      if (done(r)) return r;
      if (Date.now() > deadline) throw new Error(`timed out waiting for request ${id}: ${what} (now ${r.status}, audit ${JSON.stringify(r.audit)})`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    rpc.close();
  }
}

/**
 * Claims the payout of a settled request, waits until a payout is mined, and reads its outputs as
 * [address or "burn", base units]. Whoever claims (this, the winner's or an auditor's bridge, on
 * either node) sends one transaction spending the same held coins, so exactly one of them
 * confirms: the chain's payout_txid is the one read.
 */
export async function paidOutputs(run: NetworkRun, id: string, timeoutMs: number): Promise<{ txid: string; outputs: [string, number][] }> {
  const rpc = node(run, 1);
  try {
    await rpc.call('claimopoipayout', [id]);
    const paid = await untilRequest(run, id, (r) => r.payout_status === 'confirmed', 'its payout mined', timeoutMs);
    const txid = paid.payout_txid!;
    const tx = (await rpc.call('getrawtransaction', [txid, true])) as unknown as {
      vout: { value: number; scriptPubKey: { hex: string; address?: string } }[];
    };
    return {
      txid,
      outputs: tx.vout.map((o): [string, number] => [o.scriptPubKey.hex === '6a' ? 'burn' : (o.scriptPubKey.address ?? ''), sats(o.value)]),
    };
  } finally {
    rpc.close();
  }
}

/** The payout's leading outputs as protocol.md 11.6 lists them: those of value 0 are left out. */
export const leading = (outputs: [string, number][]) => outputs.filter(([, units]) => units > 0);
