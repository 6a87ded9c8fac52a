import type { AddressPrefixes } from '../address/address.ts';
import type { Block } from '../primitives/block.ts';
import { EQUIHASH_48_5, ZELHASH, type EquihashParams } from '../pow/equihash-params.ts';
import { COIN } from '../validation/limits.ts';
import { createGenesisBlock, type GenesisFields } from './genesis.ts';
import { NETWORK_DEFAULTS, type NetworkDefaults, type NetworkName } from './network-defaults.ts';

/**
 * Everything that differs between networks, in one place: code asks the network, never
 * hard-codes. The values and their reasons are written out in docs/protocol.md.
 */
export interface ChainParams extends NetworkDefaults {
  /** P2P message start bytes. */
  readonly magic: Uint8Array;
  readonly address: AddressPrefixes;
  /** BIP32 extended key version bytes (xpub/xprv on main, tpub/tprv elsewhere). */
  readonly bip32: { readonly public: number; readonly private: number };
  /** BIP44 coin type for HD paths. */
  readonly coinType: number;
  /** Prefix of signmessage/verifymessage digests. */
  readonly messageMagic: string;
  readonly equihash: EquihashParams;
  /** Easiest allowed target, and its compact form. */
  readonly powLimit: bigint;
  readonly powLimitBits: number;
  /** Regtest keeps every block at powLimit so that tests mine instantly. */
  readonly noRetarget: boolean;
  readonly targetSpacing: number;
  /** LWMA3 averaging window in blocks. */
  readonly lwmaWindow: number;
  /** How far a block time may run ahead of the node's clock (seconds). */
  readonly maxFutureBlockTime: number;
  readonly initialSubsidy: bigint;
  readonly halvingInterval: number;
  readonly coinbaseMaturity: number;
  /** Regtest only: generatetoaddress and friends. */
  readonly mineBlocksOnDemand: boolean;
  /** Proof-of-inference windows, fees and stakes (docs/protocol.md, OPoI). */
  readonly opoi: OpoiParams;
  /**
   * Trusted UTXO snapshots (Core's assumeutxo data): loadtxoutset accepts a snapshot only when its
   * base block and content hash are listed here. No network has one yet; regtest's come from
   * csd's -assumeutxo option (docs/snapshots.md).
   */
  readonly assumeutxo: readonly AssumeutxoEntry[];
  readonly genesis: Block;
}

/** A snapshot the network trusts: the chain state after the block `blockHash` at `height`. */
export interface AssumeutxoEntry {
  readonly height: number;
  /** The base block's hash, in display order. */
  readonly blockHash: string;
  /** The snapshot's content hash (dumptxoutset's txoutset_hash, docs/snapshots.md). */
  readonly hash: string;
}

/**
 * OPoI constants. Windows are in blocks; amounts in base units. Mainnet follows the reference
 * system's constants; regtest shrinks the windows so that a whole lifecycle takes a few dozen blocks.
 */
export interface OpoiParams {
  /** Smallest collateral a STAKE may lock. */
  readonly minStake: bigint;
  /** nOPoIFeeBase: a request's payment must exceed this plus the prompt-token fee. */
  readonly feeBase: bigint;
  /** nOPoIFeePerToken: added to the minimum payment per declared prompt token. */
  readonly feePerPromptToken: bigint;
  /** A request nobody commits to within this many blocks after it confirmed expires. */
  readonly requestExpiry: number;
  /** Blocks, counted from the first commit's, in which stakers may commit. */
  readonly commitWindow: number;
  /** Blocks after the commit window in which committers reveal; the request resolves at its last. */
  readonly revealWindow: number;
  /** A stake not renewed for more than this many blocks is SUSPENDED. */
  readonly stakeRenewal: number;
  /** Blocks after an UNSTAKE before the collateral may be spent. */
  readonly unstakeCooldown: number;
  /** Commits one request accepts (bounds the state a request can make the chain keep). */
  readonly maxCommits: number;
  /** Largest max_tokens a request may declare. */
  readonly maxTokens: number;
  /** Least a MANIFEST burns (the value of its payload output): manifests are kept forever. */
  readonly manifestFee: bigint;
  /** Blocks after a VERIFIABLE request resolves in which its prompt and answer must be published. */
  readonly publishWindow: number;
  /** Blocks after the auditor draw in which auditors commit verdicts (a challenge reopens it). */
  readonly auditCommitWindow: number;
  /** Blocks after the verdict commit window in which auditors reveal; the outcome is decided at its last. */
  readonly auditRevealWindow: number;
  /** Largest audit quorum a VERIFIABLE request may ask for (a challenge draws quorum + 1 more). */
  readonly maxAuditQuorum: number;
  /** Least audit fee per auditor: every fee ends in its own payout output, which must not be dust. */
  readonly minAuditFee: bigint;
  /** Least bond a challenge holds. */
  readonly challengeBond: bigint;
}

// 12.5 coins every 120 s, halving every 840,000 blocks (~3.2 years): the subsidy sums to just
// under 21,000,000 coins, Bitcoin's MAX_MONEY, which therefore still bounds every amount.
const INITIAL_SUBSIDY = (25n * COIN) / 2n;

function params(p: Omit<ChainParams, 'genesis'> & { genesisFields: GenesisFields }): ChainParams {
  const { genesisFields, ...rest } = p;
  return { ...rest, genesis: createGenesisBlock(genesisFields) };
}

// Mined with scripts/mine-genesis.ts (see docs/protocol.md, genesis).
const GENESIS_MAIN: GenesisFields = {
  time: 1795132800,
  bits: 0x207fffff,
  nonce: '0300000000000000000000000000000000000000000000000000000000000000',
  solution: '1651b89126af55eaa93600c8be1ac8617604e37e839957b065d34e4aa8f6353636f327be53787b52752d9e671b79802fcbb85dd2',
};
const GENESIS_TEST: GenesisFields = {
  time: 1795136400,
  bits: 0x207fffff,
  nonce: '0300000000000000000000000000000000000000000000000000000000000000',
  solution: '01088ba25b761902584282684219238021b700636517f3e45f5a5fb662d839a1bc979e4f9fbf2d7357b5b9c2775bedd19b078722',
};
const GENESIS_REGTEST: GenesisFields = {
  time: 1795132800,
  bits: 0x200f0f0f,
  nonce: '3900000000000000000000000000000000000000000000000000000000000000',
  solution: '03e80222a0fdc11112216f100b03c6fdc8f906ce8b0be63eedcd454bbdec9a84cb8fa9ea',
};

const TEST_ADDRESSES = { pubkeyHash: 0x57, scriptHash: 0x7d, wif: 0xef };

export const MAIN: ChainParams = params({
  ...NETWORK_DEFAULTS.main,
  magic: Uint8Array.of(0xc5, 0x73, 0xa1, 0x7e),
  address: { pubkeyHash: 0x1c, scriptHash: 0x3f, wif: 0x9c, bech32: 'cs' },
  bip32: { public: 0x0488b21e, private: 0x0488ade4 },
  coinType: 1618,
  messageMagic: 'cs Signed Message:\n',
  equihash: ZELHASH,
  // As Zcash and Flux mainnet: 0x0007ffff..ff, compact 0x1f07ffff.
  powLimit: (1n << 243n) - 1n,
  powLimitBits: 0x1f07ffff,
  noRetarget: false,
  targetSpacing: 120,
  lwmaWindow: 60,
  maxFutureBlockTime: 360,
  initialSubsidy: INITIAL_SUBSIDY,
  halvingInterval: 840_000,
  coinbaseMaturity: 100,
  mineBlocksOnDemand: false,
  opoi: {
    minStake: 100n * COIN,
    feeBase: COIN / 1000n,
    feePerPromptToken: COIN / 10_000n,
    // Two weeks of 2-minute blocks would be 10,080; the reference counts 2016 blocks (2.8 days).
    requestExpiry: 2016,
    commitWindow: 144,
    revealWindow: 144,
    stakeRenewal: 20_160,
    unstakeCooldown: 1440,
    maxCommits: 64,
    maxTokens: 1_000_000,
    manifestFee: COIN,
    publishWindow: 144,
    auditCommitWindow: 144,
    auditRevealWindow: 144,
    maxAuditQuorum: 16,
    minAuditFee: 10_000n,
    challengeBond: 10n * COIN,
  },
  assumeutxo: [],
  genesisFields: GENESIS_MAIN,
});

export const TEST: ChainParams = params({
  ...MAIN,
  ...NETWORK_DEFAULTS.test,
  magic: Uint8Array.of(0xc5, 0x74, 0xe5, 0x11),
  address: { ...TEST_ADDRESSES, bech32: 'tcs' },
  bip32: { public: 0x043587cf, private: 0x04358394 },
  coinType: 1,
  // As Zcash testnet: 0x07ffff..ff, compact 0x2007ffff.
  powLimit: (1n << 251n) - 1n,
  powLimitBits: 0x2007ffff,
  genesisFields: GENESIS_TEST,
});

export const REGTEST: ChainParams = params({
  ...TEST,
  ...NETWORK_DEFAULTS.regtest,
  magic: Uint8Array.of(0xc5, 0x72, 0x9e, 0x5a),
  address: { ...TEST_ADDRESSES, bech32: 'csrt' },
  equihash: EQUIHASH_48_5,
  // As Zcash regtest: 0x0f0f0f..0f, compact 0x200f0f0f.
  powLimit: BigInt(`0x${'0f'.repeat(32)}`),
  powLimitBits: 0x200f0f0f,
  noRetarget: true,
  maxFutureBlockTime: 7200,
  halvingInterval: 150,
  mineBlocksOnDemand: true,
  opoi: {
    ...TEST.opoi,
    minStake: COIN,
    requestExpiry: 40,
    commitWindow: 4,
    revealWindow: 4,
    stakeRenewal: 100,
    unstakeCooldown: 10,
    manifestFee: COIN / 10n,
    publishWindow: 4,
    auditCommitWindow: 4,
    auditRevealWindow: 4,
    challengeBond: COIN / 2n,
  },
  genesisFields: GENESIS_REGTEST,
});

export const NETWORKS: Readonly<Record<NetworkName, ChainParams>> = { main: MAIN, test: TEST, regtest: REGTEST };

export function networkByName(name: string): ChainParams {
  const net = (NETWORKS as Record<string, ChainParams | undefined>)[name];
  if (!net) throw new Error(`unknown network '${name}' (expected main, test or regtest)`);
  return net;
}
