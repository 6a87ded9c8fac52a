/**
 * @cs/consensus: the rules every program shares, as pure functions with no I/O.
 * Folders: encoding, crypto, primitives, script, address, pow, params, validation, opoi.
 */
export * from './encoding/errors.ts';
export * from './encoding/hex.ts';
export * from './encoding/reader.ts';
export * from './encoding/writer.ts';
export * from './crypto/hash.ts';
export * from './crypto/secp256k1.ts';
export * from './primitives/tx.ts';
export * from './primitives/header.ts';
export * from './primitives/block.ts';
export * from './primitives/merkle.ts';
export * from './script/index.ts';
export * from './address/address.ts';
export * from './address/wif.ts';
export * from './pow/index.ts';
export * from './params/genesis.ts';
export * from './params/network-defaults.ts';
export * from './params/networks.ts';
export * from './validation/errors.ts';
export * from './validation/limits.ts';
export * from './validation/tx-checks.ts';
export * from './validation/block-checks.ts';
export * from './validation/subsidy.ts';
export * from './opoi/index.ts';
