/**
 * OPoI in the mempool: a transaction is admitted only when the OPoI rules accept it in the next
 * block on the current tip, and when no unconfirmed transaction already takes an OPoI action it
 * would clash with inside one block (the same request id, the same miner's commit or reveal for a
 * request, a stake action of a miner beside that miner's commits and reveals, two registrations of
 * one model id). After each new tip the admitted OPoI transactions are checked again, so that
 * templates never carry one the chain has made invalid (a commit window closed, a request resolved).
 */
import {
  type OpoiPayload,
  OpoiKind,
  type Transaction,
  type TxOut,
  ValidationError,
  actorKey,
  applyOpoiTransaction,
  isHeldScript,
  toHex,
  transactionPayload,
} from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import { rejected, type AcceptFailure } from './results.ts';

/**
 * Conflict keys of an action. An exclusive key (stake actions) clashes with any other use of the
 * key; a shared one (commits and reveals of one miner) only with an exclusive one.
 */
interface ActionKey {
  readonly key: string;
  readonly exclusive: boolean;
}

function actionKeys(p: OpoiPayload): ActionKey[] {
  switch (p.kind) {
    case OpoiKind.REQUEST:
      return [{ key: `request:${toHex(p.requestId)}`, exclusive: true }];
    case OpoiKind.COMMIT:
    case OpoiKind.REVEAL: {
      const miner = actorKey(p.miner);
      const step = p.kind === OpoiKind.COMMIT ? 'commit' : 'reveal';
      return [
        { key: `${step}:${toHex(p.requestId)}:${miner}`, exclusive: true },
        { key: `miner:${miner}`, exclusive: false },
      ];
    }
    case OpoiKind.MANIFEST:
      return [{ key: `manifest:${p.modelId}`, exclusive: true }];
    case OpoiKind.PUBLISH:
    case OpoiKind.CHALLENGE:
      // One of each per request: a second would be refused by the first in the same block.
      return [{ key: `${p.kind === OpoiKind.PUBLISH ? 'publish' : 'challenge'}:${toHex(p.requestId)}`, exclusive: true }];
    case OpoiKind.VERDICT_COMMIT:
    case OpoiKind.VERDICT_REVEAL: {
      const step = p.kind === OpoiKind.VERDICT_COMMIT ? 'verdict-commit' : 'verdict-reveal';
      return [{ key: `${step}:${toHex(p.requestId)}:${actorKey(p.auditor)}`, exclusive: true }];
    }
    default:
      return [{ key: `miner:${actorKey(p.miner)}`, exclusive: true }];
  }
}

/** Reasons that may pass at a later height; the rest are invalid however long one waits. */
const PREMATURE = new Set(['bad-opoi-reveal-early', 'bad-opoi-collateral-locked', 'bad-opoi-payout-unresolved', 'bad-opoi-verdict-early']);

export class OpoiMempoolRules {
  /** txid → the keys it holds, for every admitted transaction with an OPoI payload or escrow spend. */
  private readonly held = new Map<string, { tx: Transaction; spent: readonly TxOut[]; keys: ActionKey[] }>();
  /** key → txids holding it, with whether exclusively. */
  private readonly holders = new Map<string, Map<string, boolean>>();

  constructor(private readonly chain: Chain) {}

  /** null when `tx` may enter the mempool as far as OPoI is concerned. */
  check(tx: Transaction, spent: readonly TxOut[], replacing: ReadonlySet<string>): AcceptFailure | null {
    let payload: OpoiPayload | null;
    try {
      payload = transactionPayload(tx);
      applyOpoiTransaction(this.chain.opoi.overlay(), tx, spent, this.chain.tip.height + 1, this.chain.params.opoi, []);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return rejected(PREMATURE.has(e.reason) ? 'premature-spend' : 'consensus', e.reason, e.debug);
    }
    if (payload === null) return null;
    for (const { key, exclusive } of actionKeys(payload)) {
      for (const [txid, theirs] of this.holders.get(key) ?? []) {
        if (replacing.has(txid) || (!exclusive && !theirs)) continue;
        return rejected('mempool-policy', 'opoi-mempool-conflict', `${key} is taken by ${txid}`);
      }
    }
    return null;
  }

  /** Whether the mempool must track `tx` here (it carries a payload or spends a held coin: escrow, bond, collateral). */
  static concerns(tx: Transaction, spent: readonly TxOut[]): boolean {
    return transactionPayload(tx) !== null || spent.some((o) => isHeldScript(o.scriptPubKey));
  }

  added(tx: Transaction, spent: readonly TxOut[]): void {
    if (!OpoiMempoolRules.concerns(tx, spent)) return;
    const payload = transactionPayload(tx);
    const keys = payload ? actionKeys(payload) : [];
    this.held.set(tx.txidHex, { tx, spent, keys });
    for (const { key, exclusive } of keys) {
      let m = this.holders.get(key);
      if (!m) this.holders.set(key, (m = new Map()));
      m.set(tx.txidHex, exclusive);
    }
  }

  removed(txid: string): void {
    const h = this.held.get(txid);
    if (!h) return;
    this.held.delete(txid);
    for (const { key } of h.keys) {
      const m = this.holders.get(key)!;
      m.delete(txid);
      if (m.size === 0) this.holders.delete(key);
    }
  }

  /** The tracked transactions the OPoI rules no longer admit in the next block. */
  invalidated(): string[] {
    const height = this.chain.tip.height + 1;
    const out: string[] = [];
    for (const [txid, { tx, spent }] of this.held) {
      try {
        applyOpoiTransaction(this.chain.opoi.overlay(), tx, spent, height, this.chain.params.opoi, []);
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        out.push(txid);
      }
    }
    return out;
  }
}
