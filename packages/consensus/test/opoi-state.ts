/** OPoI rule tests' shared fixtures: a map-backed state and signed-looking transactions of an actor. */
import assert from 'node:assert/strict';
import { hashToHex } from '../src/encoding/hex.ts';
import { actorScript } from '../src/opoi/actor.ts';
import { type Actor, ActorType, type OpoiPayload, opoiPayloadScript } from '../src/opoi/payload.ts';
import type { AuditRecord, CommitRecord, ManifestRecord, RequestRecord, StakeRecord } from '../src/opoi/records.ts';
import type { OpoiState } from '../src/opoi/state.ts';
import { Transaction, type TxOut } from '../src/primitives/tx.ts';
import { ValidationError } from '../src/validation/errors.ts';

/** A map-backed OpoiState, the simplest thing that satisfies the interface. */
export class MemoryState implements OpoiState {
  requests = new Map<string, RequestRecord>();
  commits = new Map<string, CommitRecord>();
  stakes = new Map<string, StakeRecord>();
  dues = new Map<number, Set<string>>();
  manifests = new Map<string, ManifestRecord>();
  audits = new Map<string, AuditRecord>();
  request = (id: string) => this.requests.get(id);
  putRequest = (r: RequestRecord) => void this.requests.set(r.id, r);
  commit = (id: string, m: string) => this.commits.get(`${id}:${m}`);
  commitsOf = (id: string) => [...this.commits.values()].filter((c) => c.requestId === id);
  putCommit = (c: CommitRecord) => void this.commits.set(`${c.requestId}:${c.miner}`, c);
  stake = (m: string) => this.stakes.get(m);
  putStake = (s: StakeRecord) => void this.stakes.set(s.miner, s);
  deleteStake = (m: string) => void this.stakes.delete(m);
  collateralOwner = (txid: Uint8Array, vout: number) =>
    [...this.stakes.values()].find((s) => s.collateralVout === vout && s.collateralTxid === hashToHex(txid))?.miner;
  servers = (modelId: string) =>
    [...this.stakes.values()]
      .filter((s) => s.serves.includes(modelId))
      .map((s) => s.miner)
      .sort();
  due = (h: number) => [...(this.dues.get(h) ?? [])];
  addDue = (h: number, id: string) => void (this.dues.get(h) ?? this.dues.set(h, new Set()).get(h)!).add(id);
  removeDue = (h: number, id: string) => void this.dues.get(h)?.delete(id);
  manifest = (id: string) => this.manifests.get(id);
  putManifest = (m: ManifestRecord) => void this.manifests.set(m.modelId, m);
  audit = (id: string) => this.audits.get(id);
  putAudit = (a: AuditRecord) => void this.audits.set(a.requestId, a);

  /** Copies the maps (records are immutable values, due sets are copied); the function returned puts them back. */
  snapshot(): () => void {
    const saved = {
      requests: new Map(this.requests),
      commits: new Map(this.commits),
      stakes: new Map(this.stakes),
      dues: new Map([...this.dues].map(([h, ids]) => [h, new Set(ids)])),
      manifests: new Map(this.manifests),
      audits: new Map(this.audits),
    };
    return () => void Object.assign(this, saved);
  }
}

let serial = 0;
/** A transaction spending one coin of `actor` (signature byte SIGHASH_ALL unless told) with `outputs`. */
export function actingTx(actor: Actor, outputs: TxOut[], sighash = 1): { tx: Transaction; spent: TxOut[] } {
  const prevTxid = new Uint8Array(32);
  prevTxid[0] = ++serial;
  prevTxid[1] = serial >> 8;
  const sig = Uint8Array.of(0x30, 0x00, sighash);
  const input =
    actor.type === ActorType.P2WPKH
      ? { prevout: { txid: prevTxid, vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [sig, new Uint8Array(33)] }
      : { prevout: { txid: prevTxid, vout: 0 }, scriptSig: Uint8Array.of(3, ...sig, 33, ...new Uint8Array(33)), sequence: 0xffffffff, witness: [] };
  const tx = new Transaction({ version: 2, inputs: [input], outputs, locktime: 0 });
  return { tx, spent: [{ value: 1_000_000_000n, scriptPubKey: actorScript(actor) }] };
}

export const payloadOut = (p: OpoiPayload): TxOut => ({ value: 0n, scriptPubKey: opoiPayloadScript(p) });

/** `fn` throws a ValidationError with exactly this reason (the message shows the one it threw instead). */
export function expectReject(fn: () => void, reason: string): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    assert.equal(e.reason, reason, e.message);
    return;
  }
  assert.fail(`expected ${reason}, but nothing was refused`);
}
