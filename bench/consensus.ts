// Issue #2's figures from one run: every number is a ratio (or a median) measured in this process,
// so machine noise hits both sides of each comparison alike.
//   node --conditions=@cs/source --import tsx bench/consensus.ts
import { benchPow } from './pow.ts';
import { benchScript, describeScriptFloor } from './script.ts';

const script = await benchScript();
const pow = await benchPow();
const verdict = (ok: boolean) => (ok ? 'ok' : 'BELOW GOAL');

console.log(
  `(a) P2WPKH input verify via interpreter / raw libsecp256k1 verify: ${script.ratio.toFixed(2)} (goal >= 0.95, ${verdict(script.ratio >= 0.95)})`,
);
console.log(`    ${script.interpUsPerInput.toFixed(1)} us per input through the interpreter, ${script.rawUsPerInput.toFixed(1)} us raw`);
for (const line of describeScriptFloor(script)) console.log(line);
console.log(
  `(b) ZelHash header verify / bare BLAKE2b work it performs: ${pow.zelhashRatio.toFixed(2)} (goal <= 1.3, ${verdict(pow.zelhashRatio <= 1.3)})`,
);
console.log(`(c) (48,5) solve median: ${pow.solveMedianMs.toFixed(2)} ms`);
