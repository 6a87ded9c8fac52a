/**
 * A share verifier thread (verifier.ts): answers each batch of share records (share-record.ts),
 * in the order received, with one byte per share, 1 for a valid Equihash solution.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EquihashParams } from '@cs/consensus';
import { checkRecord } from './share-record.ts';

const { equihash, record } = workerData as { equihash: EquihashParams; record: number };

parentPort!.on('message', (batch: Uint8Array) => {
  const verdicts = new Uint8Array(batch.length / record);
  for (let i = 0; i < verdicts.length; i++) verdicts[i] = checkRecord(equihash, batch, i, record) ? 1 : 0;
  parentPort!.postMessage(verdicts, [verdicts.buffer]);
});
