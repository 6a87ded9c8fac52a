// Writes the tiny random-weight llama model the miner's tests run through llama.cpp:
//   node --conditions=@cs/source --import tsx scripts/write-tiny-model.ts <out.gguf> [seed]
// The same seed always writes the same bytes.
import { writeFileSync } from 'node:fs';
import { tinyLlamaGguf } from '../packages/cs-miner/src/gguf/tiny-llama.ts';

const [out, seedText = '1'] = process.argv.slice(2);
const seed = Number(seedText);
if (!out || !Number.isSafeInteger(seed) || seed < 0) {
  process.stderr.write('usage: write-tiny-model.ts <out.gguf> [seed, a non-negative integer]\n');
  process.exit(1);
}
const bytes = tinyLlamaGguf(seed);
writeFileSync(out, bytes);
process.stdout.write(`${out}: ${bytes.length} bytes, seed ${seed}\n`);
