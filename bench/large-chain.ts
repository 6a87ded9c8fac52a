// A large regtest chain for the sync benches, generated once and cached on disk as a csd data
// directory (its LMDB chainstate holds the blocks): 100 blocks of coinbases, 100 blocks that fan
// them out into 10,000 P2WPKH outputs each (a UTXO set of one million coins), then `spendBlocks`
// blocks of 2,000 P2WPKH inputs each (10 transactions of 200), spending coins picked at random
// from the whole set and paying as many new ones, so the UTXO set stays at a million and every
// block's lookups land all over it.
//   node --conditions=@cs/source --import tsx bench/large-chain.ts [spendBlocks]    (default 2000; prints the cache path)
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrecomputedTxData, Transaction, hash160, p2wpkhScript, publicKeyCreate, type TxIn } from '@cs/consensus';
import { nextBlock, openHarness, spendOpTrue } from '../packages/csd/test/chain-harness.ts';
import { SCHEMA_VERSION } from '../packages/csd/src/storage/database.ts';
import { signP2wpkhInput } from '../packages/csd/test/test-key.ts';

const FAN_OUT_BLOCKS = 100;
const FAN_OUT = 10_000;
const INPUTS_PER_BLOCK = 2000;
const TXS_PER_BLOCK = 10;
const FEE = 1000n;
/** Keys the coins are paid to: signatures differ per input anyway (each signs its own sighash). */
const KEYS = 16;

export interface LargeChain {
  /** A csd data directory (`-datadir`) holding the chain under regtest/. */
  readonly datadir: string;
  readonly height: number;
  readonly tip: string;
  /** P2WPKH inputs spent by the chain (signatures to verify). */
  readonly inputs: number;
  readonly utxos: number;
  readonly generationSeconds: number;
  /** The database schema the chain was written with: a cache of another schema is generated again. */
  readonly schema: number;
}

interface Coin {
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly value: bigint;
  readonly key: number;
}

/** Where the chain of `spendBlocks` blocks is cached: $CS_BENCH_CACHE or the system temporary directory. */
function cacheDir(spendBlocks: number): string {
  return join(process.env.CS_BENCH_CACHE ?? join(tmpdir(), 'cs-bench'), `large-chain-${spendBlocks}`);
}

/** The cached chain of `spendBlocks` spending blocks, generated first if there is none. */
export async function largeChain(spendBlocks: number, log: (line: string) => void = console.log): Promise<LargeChain> {
  const dir = cacheDir(spendBlocks);
  const metaFile = join(dir, 'chain.json');
  if (existsSync(metaFile)) {
    const cached = JSON.parse(readFileSync(metaFile, 'utf8')) as LargeChain;
    if (cached.schema === SCHEMA_VERSION) return cached;
    log(`large chain: the cached one has database schema ${cached.schema ?? 1}, csd reads ${SCHEMA_VERSION}; generating it again`);
  }
  // A half-generated chain from an interrupted run (or one of another schema) is started over.
  rmSync(dir, { recursive: true, force: true });
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  const started = performance.now();
  const h = await openHarness({ dir: work, threads: 0 });
  const { chain } = h;
  const keys = Array.from({ length: KEYS }, (_, i) => {
    const priv = new Uint8Array(32).fill(i + 1);
    const pub = publicKeyCreate(priv, true);
    return { priv, pub, spk: p2wpkhScript(hash160(pub)) };
  });
  const accept = async (block: ReturnType<typeof nextBlock>) => {
    const r = await chain.processBlock(block);
    if (r.status !== 'accepted') throw new Error(`generated block refused at ${chain.height + 1}: ${JSON.stringify(r)}`);
  };

  for (let i = 0; i < FAN_OUT_BLOCKS; i++) await accept(nextBlock(chain));
  const coins: Coin[] = [];
  for (let i = 0; i < FAN_OUT_BLOCKS; i++) {
    const cb = chain.readBlock(chain.atHeight(i + 1)!)!.txs[0];
    const each = (cb.outputs[0].value - FEE) / BigInt(FAN_OUT);
    const outputs = Array.from({ length: FAN_OUT }, (_, n) => ({ value: each, scriptPubKey: keys[n % KEYS].spk }));
    const fan = spendOpTrue(cb, 0, outputs);
    await accept(nextBlock(chain, { txs: [fan], fees: cb.outputs[0].value - each * BigInt(FAN_OUT) }));
    for (let n = 0; n < FAN_OUT; n++) coins.push({ txid: fan.txid, vout: n, value: each, key: n % KEYS });
  }
  log(`large chain: ${coins.length} coins after ${chain.height} blocks; signing ${spendBlocks} blocks of ${INPUTS_PER_BLOCK} inputs`);

  // A fixed-seed generator: the same size gives the same chain shape on every machine.
  let seed = 0x2026;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const per = INPUTS_PER_BLOCK / TXS_PER_BLOCK;
  for (let b = 0; b < spendBlocks; b++) {
    const txs: Transaction[] = [];
    const created: Coin[] = [];
    for (let t = 0; t < TXS_PER_BLOCK; t++) {
      const spent: Coin[] = [];
      for (let i = 0; i < per; i++) {
        const at = random(coins.length);
        spent.push(coins[at]);
        coins[at] = coins[coins.length - 1];
        coins.pop();
      }
      const total = spent.reduce((s, c) => s + c.value, 0n) - FEE;
      const each = total / BigInt(per);
      const inputs: TxIn[] = spent.map((c) => ({
        prevout: { txid: c.txid, vout: c.vout },
        scriptSig: new Uint8Array(0),
        sequence: 0xffffffff,
        witness: [],
      }));
      const outputs = spent.map((c, i) => ({ value: i === 0 ? total - each * BigInt(per - 1) : each, scriptPubKey: keys[(c.key + 1) % KEYS].spk }));
      const unsigned = new Transaction({ version: 2, inputs, outputs, locktime: 0 });
      const txdata = new PrecomputedTxData(unsigned);
      const signed = new Transaction({
        ...unsigned,
        inputs: inputs.map((input, i) => {
          const key = keys[spent[i].key];
          return { ...input, witness: signP2wpkhInput(unsigned, i, spent[i].value, key.priv, key.pub, txdata).witness };
        }),
      });
      txs.push(signed);
      outputs.forEach((o, vout) => created.push({ txid: signed.txid, vout, value: o.value, key: (spent[vout].key + 1) % KEYS }));
    }
    await accept(nextBlock(chain, { txs, fees: FEE * BigInt(TXS_PER_BLOCK) }));
    // Coins created by this block are spendable from the next one on.
    coins.push(...created);
    if ((b + 1) % 100 === 0) log(`large chain: ${b + 1}/${spendBlocks} spending blocks, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }

  const meta: LargeChain = {
    datadir: join(dir, 'datadir'),
    height: chain.height,
    tip: chain.tip.hashHex,
    inputs: spendBlocks * INPUTS_PER_BLOCK,
    utxos: coins.length,
    generationSeconds: (performance.now() - started) / 1000,
    schema: SCHEMA_VERSION,
  };
  await chain.close();
  await h.db.close();
  // csd keeps a network's database in <datadir>/<network>/chainstate.
  mkdirSync(join(meta.datadir, 'regtest'), { recursive: true });
  renameSync(join(work, 'db'), join(meta.datadir, 'regtest', 'chainstate'));
  rmSync(work, { recursive: true, force: true });
  writeFileSync(metaFile, JSON.stringify(meta, null, 1));
  return meta;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const meta = await largeChain(Number(process.argv[2] ?? 2000));
  console.log(JSON.stringify(meta));
}
