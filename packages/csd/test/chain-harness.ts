// A real chain over a real LMDB database in a temporary directory, for chain-level tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import pino, { type Logger } from 'pino';
import { REGTEST, Transaction, blockSubsidy, type Block, type ChainParams, type TxOut } from '@cs/consensus';
import type { BlockIndexEntry } from '../src/chain/block-index.ts';
import { Chain } from '../src/chain/chainstate.ts';
import { ScriptVerifier } from '../src/chain/script-verifier.ts';
import { addWitnessCommitment, assembleBlock, createCoinbase, solveBlock } from '../src/mining/assemble.ts';
import { ChainDatabase } from '../src/storage/database.ts';

export const OP_TRUE = Uint8Array.of(0x51);

/** A fresh chain database in a temporary directory, closed and removed after test `t`. */
export function tempDatabase(t: TestContext, prefix: string): ChainDatabase {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = ChainDatabase.open(join(dir, 'chain'));
  t.after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

export interface Harness {
  readonly dir: string;
  chain: Chain;
  db: ChainDatabase;
  /** Closes and reopens the database and chain, as a restart would. */
  reopen(): Promise<void>;
  /**
   * Reopens without the chain's orderly shutdown: only committed transactions survive (the coins
   * cache is not written), as after a killed process. A batch the writer thread is writing lands
   * first (a kill just after its commit; one before it leaves nothing, as LMDB's commit is atomic).
   */
  crash(): Promise<void>;
  close(): Promise<void>;
}

export async function openHarness(
  opts: {
    params?: ChainParams;
    threads?: number;
    dir?: string;
    coinsCacheBytes?: number;
    backgroundWriteCoins?: number;
    /** The chain's logger; silent when absent. */
    log?: Logger;
  } = {},
): Promise<Harness> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'cs-chain-'));
  const params = opts.params ?? REGTEST;
  const make = async () => {
    const db = ChainDatabase.open(join(dir, 'db'));
    const chain = new Chain({
      db,
      params,
      verifier: new ScriptVerifier(opts.threads ?? 1),
      log: opts.log ?? pino({ level: 'silent' }),
      now: () => 1795200000,
      coinsCacheBytes: opts.coinsCacheBytes,
      backgroundWriteCoins: opts.backgroundWriteCoins,
    });
    await chain.load();
    return { db, chain };
  };
  let { db, chain } = await make();
  const h: Harness = {
    dir,
    get chain() {
      return chain;
    },
    get db() {
      return db;
    },
    async reopen() {
      await chain.close();
      await db.close();
      ({ db, chain } = await make());
    },
    async crash() {
      await chain.halt();
      await db.close();
      ({ db, chain } = await make());
    },
    async close() {
      await chain.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  } as Harness;
  return h;
}

let extra = 0;

/** A solved block on `prev` (default: the tip) paying subsidy + fees to `payTo` (default OP_TRUE). */
export function nextBlock(
  chain: Chain,
  opts: { prev?: BlockIndexEntry; txs?: Transaction[]; fees?: bigint; payTo?: Uint8Array; time?: number } = {},
): Block {
  const prev = opts.prev ?? chain.tip;
  const height = prev.height + 1;
  const value = blockSubsidy(height, chain.params) + (opts.fees ?? 0n);
  const outputs: TxOut[] = [{ value, scriptPubKey: opts.payTo ?? OP_TRUE }];
  const coinbase = createCoinbase({ height, outputs, extraNonce: Uint8Array.of(extra++ & 0xff, (extra >> 8) & 0xff, 0, 0) });
  const txs = addWitnessCommitment([coinbase, ...(opts.txs ?? [])]);
  const time = opts.time ?? Math.max(prev.medianTimePast() + 1, prev.time + 1);
  const block = solveBlock(assembleBlock({ prevHash: prev.hash, time, bits: chain.nextWorkRequired(prev), txs }), chain.params, 10_000);
  if (!block) throw new Error('no solution');
  return block;
}

/** Spends output `vout` of `tx` (an OP_TRUE output) into `outputs`. */
export function spendOpTrue(tx: Transaction, vout: number, outputs: TxOut[]): Transaction {
  return new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: tx.txid, vout }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
    outputs,
    locktime: 0,
  });
}
