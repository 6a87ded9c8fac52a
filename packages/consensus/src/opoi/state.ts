/**
 * What every OPoI rule module shares: the state interface the rules read and write, the lifecycle
 * events they announce, the payload of a transaction, and the checks each step starts with.
 */
import { DecodeError } from '../encoding/errors.ts';
import { toHex } from '../encoding/hex.ts';
import type { OpoiParams } from '../params/networks.ts';
import type { Transaction, TxIn, TxOut } from '../primitives/tx.ts';
import { ScriptReader } from '../script/script.ts';
import { SIGHASH_ALL } from '../script/sighash.ts';
import { ValidationError } from '../validation/errors.ts';
import { actorKey, paysActor } from './actor.ts';
import { type Actor, ActorType, type OpoiPayload, decodeOpoiPayload, opoiPayloadBytes, opoiPayloadIndex } from './payload.ts';
import {
  type AuditOutcome,
  type AuditRecord,
  type CommitRecord,
  type ManifestRecord,
  type RequestRecord,
  type StakeRecord,
  stakeStatus,
} from './records.ts';

/** Reads and writes of the OPoI state, as of the point in the chain being validated. */
export interface OpoiState {
  request(id: string): RequestRecord | undefined;
  putRequest(r: RequestRecord): void;
  commit(requestId: string, miner: string): CommitRecord | undefined;
  /** Every commit of a request. */
  commitsOf(requestId: string): CommitRecord[];
  putCommit(c: CommitRecord): void;
  stake(miner: string): StakeRecord | undefined;
  /**
   * Stores a stake; the state indexes its collateral outpoint (collateralOwner) and its served
   * manifests (servers). An update of a stored stake keeps both (only STAKE sets them).
   */
  putStake(s: StakeRecord): void;
  deleteStake(miner: string): void;
  /** The miner whose stake holds this outpoint as collateral (called for every input: keep it cheap). */
  collateralOwner(txid: Uint8Array, vout: number): string | undefined;
  /** Miners whose stake declares it serves the manifest, in key order, whatever their status. */
  servers(modelId: string): readonly string[];
  manifest(modelId: string): ManifestRecord | undefined;
  putManifest(m: ManifestRecord): void;
  audit(requestId: string): AuditRecord | undefined;
  putAudit(a: AuditRecord): void;
  /** Requests to settle at the end of the block at `height`. */
  due(height: number): string[];
  addDue(height: number, requestId: string): void;
  removeDue(height: number, requestId: string): void;
}

export type OpoiEventType =
  | 'request'
  | 'commit'
  | 'reveal'
  | 'resolved'
  | 'expired'
  | 'paid'
  | 'stake'
  | 'renew'
  | 'unstake'
  | 'released'
  | 'manifest'
  | 'publish'
  | 'auditor'
  | 'challenge'
  | 'verdict-commit'
  | 'verdict-reveal'
  | 'audited'
  | 'forfeit';

/** One lifecycle step, as the chain made it (WebSocket `opoi`, ZeroMQ `opoi`). */
export interface OpoiEvent {
  readonly type: OpoiEventType;
  readonly height: number;
  /** Request id (32 hex digits) for request steps, null for stake and manifest steps. */
  readonly requestId: string | null;
  /**
   * Actor key of the one acting or concerned: the miner or staker, the winner for `resolved`,
   * `audited` and `forfeit`, the registrant for `manifest`, the drawn auditor for `auditor`, the
   * challenger for `challenge`; null where nobody is (a publish, an expiry).
   */
  readonly miner: string | null;
  /** The transaction that made the step; null for steps a block's end makes (resolved, expired, auditor, audited, forfeit). */
  readonly txid: string | null;
  /** The registered model id, on `manifest` steps only. */
  readonly modelId?: string;
  /** The audit's outcome, on `audited` steps only. */
  readonly outcome?: AuditOutcome;
}

export function bad(reason: string, debug = ''): ValidationError {
  return new ValidationError(reason, debug);
}

/** Whether an input spending an actor's coin carries a SIGHASH_ALL signature (so it covers every output). */
function signsAll(input: TxIn, type: ActorType): boolean {
  let sig: Uint8Array;
  if (type === ActorType.P2WPKH) {
    if (input.witness.length !== 2) return false;
    sig = input.witness[0];
  } else {
    const r = new ScriptReader(input.scriptSig);
    if (!r.next()) return false;
    sig = r.data();
  }
  return sig.length > 0 && sig[sig.length - 1] === SIGHASH_ALL;
}

/** The acting address must sign one of the inputs, spending its own coin, with SIGHASH_ALL. */
export function requireSignedBy(tx: Transaction, spent: readonly TxOut[], actor: Actor): void {
  for (let i = 0; i < tx.inputs.length; i++) {
    if (paysActor(spent[i].scriptPubKey, actor) && signsAll(tx.inputs[i], actor.type)) return;
  }
  throw bad('bad-opoi-unsigned', `no input of ${actorKey(actor)} signed with SIGHASH_ALL`);
}

/** The transaction's payload, decoded; null without one. */
export function transactionPayload(tx: Transaction): OpoiPayload | null {
  const index = opoiPayloadIndex(tx);
  if (index === -1) return null;
  if (index === -2) throw bad('bad-opoi-payload-multiple', 'more than one OPoI payload output');
  try {
    return decodeOpoiPayload(opoiPayloadBytes(tx.outputs[index].scriptPubKey)!);
  } catch (e) {
    if (e instanceof DecodeError) throw bad('bad-opoi-payload', e.message);
    throw e;
  }
}

/** The transaction's payload, or null without one or with a malformed one (for display and wallets). */
export function payloadOrNull(tx: Transaction): OpoiPayload | null {
  try {
    return transactionPayload(tx);
  } catch (e) {
    if (e instanceof ValidationError) return null;
    throw e;
  }
}

export function knownRequest(state: OpoiState, requestId: Uint8Array): RequestRecord {
  const id = toHex(requestId);
  const r = state.request(id);
  if (!r) throw bad('bad-opoi-request-unknown', `no request ${id}`);
  return r;
}

export function requireActiveStake(state: OpoiState, miner: string, height: number, p: OpoiParams): StakeRecord {
  const stake = state.stake(miner);
  const status = stake ? stakeStatus(stake, height, p) : 'none';
  if (status !== 'ACTIVE') throw bad('bad-opoi-stake-inactive', `stake of ${miner} is ${status}`);
  return stake!;
}

/** ACTIVE stakers serving a manifest at `height`, in key order, without the ones excluded; at most `limit` of them. */
export function activeServers(
  state: OpoiState,
  modelId: string,
  height: number,
  p: OpoiParams,
  exclude: ReadonlySet<string>,
  limit = Number.POSITIVE_INFINITY,
): string[] {
  const out: string[] = [];
  for (const m of state.servers(modelId)) {
    if (out.length >= limit) break;
    if (exclude.has(m)) continue;
    const s = state.stake(m);
    if (s !== undefined && stakeStatus(s, height, p) === 'ACTIVE') out.push(m);
  }
  return out;
}
