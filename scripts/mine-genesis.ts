// Mines the genesis block of each network: the genesis coinbase and header of params/genesis.ts
// with the given time and bits, searching nonces from zero until a solution's block hash meets
// the bits. Prints the fields recorded in params/networks.ts. A ZelHash (125,4) solve takes
// minutes and several GB of memory per nonce; (48,5) takes milliseconds.
//   node --conditions=@cs/source --import tsx scripts/mine-genesis.ts <main|test|regtest> <time> <bits-hex>
import { toHex } from '../packages/consensus/src/encoding/hex.ts';
import { createGenesisBlock } from '../packages/consensus/src/params/genesis.ts';
import { networkByName } from '../packages/consensus/src/params/networks.ts';
import { sha256d } from '../packages/consensus/src/crypto/hash.ts';
import { Writer } from '../packages/consensus/src/encoding/writer.ts';
import { compactToTarget, hashMeetsTarget, mineHeader } from '../packages/consensus/src/pow/index.ts';
import { hashToHex } from '../packages/consensus/src/encoding/hex.ts';

const [name, timeArg, bitsArg] = process.argv.slice(2);
if (!name || !timeArg || !bitsArg) {
  console.error('usage: mine-genesis.ts <main|test|regtest> <time> <bits-hex>');
  process.exit(2);
}
const params = networkByName(name);
const time = Number(timeArg);
const bits = parseInt(bitsArg, 16);
const template = createGenesisBlock({ time, bits, nonce: '00'.repeat(32), solution: '' }).header.prefix();
const { target } = compactToTarget(bits);
const started = Date.now();
const mined = mineHeader(params.equihash, template, {
  maxNonces: 10_000,
  accept: (header140, solution) => hashMeetsTarget(sha256d(new Writer().bytes(header140).varBytes(solution).finish()), target),
});
if (!mined) {
  console.error('no solution within 10,000 nonces');
  process.exit(1);
}
const fields = { time, bits, nonce: toHex(mined.header140.subarray(108)), solution: toHex(mined.solution) };
const block = createGenesisBlock({ ...fields, bits });
console.log(
  JSON.stringify({
    network: name,
    ...fields,
    bits: `0x${bits.toString(16)}`,
    hash: hashToHex(block.hash),
    noncesTried: mined.noncesTried,
    seconds: (Date.now() - started) / 1000,
  }),
);
