/**
 * `cs-bridge challenge <request_id>`: a CHALLENGE of an answer under audit (docs/bridge.md,
 * "Challenging"). The bond is held with the request's escrow and buys a second, larger round of
 * auditors; it comes back unless the answer is found valid. The window is the chain's: after the
 * first draw, until the verdict commits close.
 */
import { pickRequester } from '@cs/client';
import { amountFromValue, parseAmount } from '@cs/runtime/amount';
import { ConfigError } from '../config/env.ts';
import type { ChallengeRequest } from '../config/requester-options.ts';
import { withNode } from './node.ts';

export async function runChallenge(envFile: string, flags: ChallengeRequest, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const say = (text: string) => out.write(`${text}\n`);
  return withNode(envFile, flags, async (rpc) => {
    const stats = (await rpc.call('getopoistats')) as { params?: { challenge_bond?: number } };
    const bond = flags.bond === null ? amountFromValue(stats.params?.challenge_bond ?? 0) : parseAmount(flags.bond)!;
    const challenger = flags.challenger ?? (await pickRequester(rpc, bond));
    if (challenger === null)
      throw new ConfigError('no wallet address holds enough confirmed coins for the bond; fund one, or pass -challenger=<address>');
    const r = await rpc.call('submitopoichallenge', [flags.requestId, challenger, flags.bond]);
    say(`CHALLENGE of ${flags.requestId} broadcast: txid ${r.txid}`);
    say(`challenger ${r.challenger}, bond ${r.bond}; the second round of auditors is drawn at the end of block ${r.draw_height}`);
    return 0;
  });
}
