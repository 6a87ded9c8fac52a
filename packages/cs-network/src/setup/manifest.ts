/**
 * The model manifest of the file the miners serve (docs/protocol.md 11.1, "Model manifests"):
 * registered once on the network's chain from node 1's wallet, so that VERIFIABLE requests can name
 * it and the bridges' stakes can serve it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { RpcError } from '@cs/client';
import type { Network } from '../network/network.ts';
import type { Progress } from '../supervisor/progress.ts';

/**
 * The replay tolerance, in 2^-16 logit: 0.5 logit. See docs/cs-network.md ("Choices") for the
 * figure it rests on.
 */
export const MANIFEST_TOLERANCE = 32_768;
/** Paid to the registrant's address: the 0.1-coin fee regtest burns and the transaction's fee. */
const REGISTRANT_FUNDS = 1;

export interface ModelIdentity {
  /** The manifest's model id: the miners' model name and the file's first 8 SHA-256 digits. */
  readonly id: string;
  readonly sha256: string;
  readonly size: number;
}

const identities = new Map<string, Promise<ModelIdentity>>();

/** The model file's SHA-256 and size, read through once per run (about a second per GB). */
export function modelIdentity(net: Network): Promise<ModelIdentity> {
  let identity = identities.get(net.modelPath);
  if (!identity) identities.set(net.modelPath, (identity = hashModel(net)));
  return identity;
}

async function hashModel(net: Network): Promise<ModelIdentity> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(net.modelPath)) hash.update(chunk as Buffer);
  const sha256 = hash.digest('hex');
  // The miner serves -model-path under its file name without .gguf (docs/miner.md).
  const name = basename(net.modelPath).replace(/\.gguf$/i, '');
  return { id: `${name}:${sha256.slice(0, 8)}`, sha256, size: statSync(net.modelPath).size };
}

/** Registers the model's manifest unless the chain has it, and says which it is. */
export async function registerManifest(net: Network, progress: Progress): Promise<ModelIdentity> {
  const model = await modelIdentity(net);
  const rpc = net.rpc(1, 120_000);
  try {
    try {
      const have = await rpc.call('getmodelmanifest', [model.id]);
      if (have.gguf_sha256 !== model.sha256) throw new Error(`manifest ${model.id} on chain names another file (${have.gguf_sha256})`);
      net.save({ ...net.state, manifestId: model.id });
      return model;
    } catch (e) {
      if (!(e instanceof RpcError && e.code === -5)) throw e;
    }
    progress.step(`registering the manifest ${model.id} of ${net.modelPath} (tolerance ${MANIFEST_TOLERANCE / 65536} logit)`);
    const mine = async () => rpc.call('generatetoaddress', [1, await rpc.call('getnewaddress', ['network'])]);
    // The MANIFEST is signed and paid by its registrant: a coin of that address, confirmed.
    const registrant = await rpc.call('getnewaddress', ['manifest-registrant']);
    await rpc.call('sendtoaddress', [registrant, REGISTRANT_FUNDS]);
    await mine();
    await rpc.call('registermodelmanifest', [model.id, model.sha256, model.size, MANIFEST_TOLERANCE, registrant]);
    await mine();
    net.save({ ...net.state, manifestId: model.id });
    return model;
  } finally {
    rpc.close();
  }
}
