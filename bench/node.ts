// Issue #3 figures, with issue 15's goals, from one run:
//  - block connect of a block with 2,000 P2WPKH inputs through the real chain, per input, against
//    raw single-thread libsecp256k1 verification of the same signatures (goal: >= 1.85x on 2 cores, issue 15);
//  - getblockchaininfo (the real method, on a real regtest chain) requests/s over keep-alive HTTP
//    against a bare node:http server answering the same bytes (goal >= 0.85, issue 15).
//   node --conditions=@cs/source --import tsx bench/node.ts
import { registerBlockchainMethods } from '../packages/csd/src/rpc/methods/blockchain.ts';
import { withRpcNode } from '../packages/csd/test/rpc-harness.ts';
import { benchChainConnect, describeChainConnect } from './chain-connect.ts';
import { benchRpcHttp } from './rpc-http.ts';

for (const line of describeChainConnect(await benchChainConnect())) console.log(line);

await withRpcNode(
  () => undefined,
  async (node) => {
    const r = await benchRpcHttp({ setup: (registry) => registerBlockchainMethods(registry, node.ctx) });
    console.log(
      `getblockchaininfo over keep-alive HTTP / bare node:http: ${r.ratio.toFixed(2)} (goal >= 0.85) [${Math.round(r.rpcRps)} vs ${Math.round(r.bareRps)} requests/s; server-bound ${r.serverBoundRatio.toFixed(2)}]`,
    );
  },
);
