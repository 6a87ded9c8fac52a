/**
 * What `cs-bridge ask` prints as a request goes: one line per new step seen on chain (commits and
 * reveals, the resolution, the PUBLISH, each auditor drawn, each verdict committed and revealed, a
 * challenge, the outcome, the payout and what it pays) or in the bridge (its stage). Each step is
 * printed once, however often it is polled.
 */
import type { RpcResult } from '@cs/client';

type ChainRequest = RpcResult<'getopoirequest'>;

export class Timeline {
  private readonly seen = new Set<string>();

  /** The lines for what is new in `chain` and the bridge's `stage` since the last call. */
  next(chain: ChainRequest, stage: string | null): string[] {
    const out: string[] = [];
    const once = (key: string, line: string) => {
      if (this.seen.has(key)) return;
      this.seen.add(key);
      out.push(`  ${line}`);
    };
    once(`status:${chain.status}/${stage}`, `request ${chain.status}, bridge stage ${stage ?? 'unknown'}, commits ${chain.commits.length}`);
    for (const c of chain.commits) {
      once(`commit:${c.miner}`, `COMMIT by ${c.miner} at height ${c.commit_height}`);
      if (c.revealed) once(`reveal:${c.miner}`, `REVEAL by ${c.miner} at height ${c.reveal_height}: ${c.token_count} tokens`);
    }
    if (chain.winner) once('winner', `resolved at height ${chain.resolved_height}: winner ${chain.winner}`);
    if (chain.publish) once('publish', `published on chain: PUBLISH ${chain.publish.txid} at height ${chain.publish.height}`);
    const audit = chain.audit;
    if (audit) {
      once(
        'windows',
        `audit: auditors drawn at the end of block ${audit.draw_height}, verdicts committed until ${audit.commit_close}, revealed until ${audit.reveal_deadline}`,
      );
      if (audit.challenge)
        once('challenge', `challenged by ${audit.challenge.challenger} with a bond of ${audit.challenge.bond} at height ${audit.challenge.height}`);
      for (const x of audit.auditors) {
        once(`drawn:${x.address}`, `auditor drawn: ${x.address} (round ${x.round})`);
        if (x.committed) once(`committed:${x.address}`, `verdict committed by ${x.address}`);
        if (x.verdict) once(`revealed:${x.address}`, `verdict revealed by ${x.address}: ${x.verdict}`);
      }
      if (audit.outcome)
        once('outcome', `outcome: ${audit.outcome} (${chain.status})${audit.forfeited > 0 ? `, collateral forfeited ${audit.forfeited}` : ''}`);
    }
    if (chain.payout_txid) {
      once(
        `payout:${chain.payout_status}`,
        `payout ${chain.payout_txid} (${chain.payout_status}${chain.payout_height === null ? '' : ` at height ${chain.payout_height}`})`,
      );
      chain.payout_outputs.forEach((o, i) => once(`pays:${i}`, `  pays ${o.address ?? 'burned (OP_RETURN)'} ${o.amount}`));
    }
    return out;
  }
}
