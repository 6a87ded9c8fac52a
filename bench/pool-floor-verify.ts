// bench/pool.ts's floor for (a): one of the bare verifier threads. It keeps the share records of
// a round (header ‖ solution, one size) and, on 'go', checks its part of them with
// checkHeaderSolution and nothing else, then answers how many were valid.
//   parent -> { records: Uint8Array, record: number } | 'go'
//   thread -> 'loaded' | { valid }
import { parentPort } from 'node:worker_threads';
import { HEADER_BYTES, REGTEST, checkHeaderSolution } from '@cs/consensus';

let records: Uint8Array = new Uint8Array(0);
let record = 1;

parentPort!.on('message', (m: { records: Uint8Array; record: number } | 'go') => {
  if (m !== 'go') {
    ({ records, record } = m);
    parentPort!.postMessage('loaded');
    return;
  }
  let valid = 0;
  for (let at = 0; at < records.length; at += record) {
    if (checkHeaderSolution(REGTEST.equihash, records.subarray(at, at + HEADER_BYTES), records.subarray(at + HEADER_BYTES, at + record)) === 'ok')
      valid++;
  }
  parentPort!.postMessage({ valid });
});
