import { randomBytes } from 'node:crypto';
import { ChainDatabase } from './src/storage/database.ts';
const db = ChainDatabase.open('/work/scratch/ri-datadir/regtest/chainstate');
const t = db.tables;
const run = (label: string, fn: () => void) => { const t0 = performance.now(); for (let i = 0; i < 100; i++) db.write(fn); console.log(label, ((performance.now() - t0) / 100).toFixed(2), 'ms/commit'); };
run('index put', () => t.index.put(randomBytes(32), Buffer.alloc(120)));
run('undo 64K put', () => t.undo.put(randomBytes(32), Buffer.alloc(64000)));
run('index put', () => t.index.put(randomBytes(32), Buffer.alloc(120)));
process.exit(0);
