/**
 * The model manifest of the file the miners serve (docs/protocol.md 11.1, "Model manifests"):
 * registered once on the network's chain with `cs-bridge manifest`, as an operator registers one,
 * through bridge 1's environment file (node 1's wallet pays the burned fee), so that VERIFIABLE
 * requests can name it and the bridges' stakes can serve it.
 */
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { RpcError } from '@cs/client';
import { ggufFileIdentity } from '@cs/runtime/file-hash';
import { nodeArgv } from '@cs/runtime/launch';
import type { Network } from '../network/network.ts';
import type { Progress } from '../supervisor/progress.ts';
import { bridgeProcessEnv } from './chain.ts';

/** 1/16 logit in 2^-16 units: cs-miner's recommendation from its false-positive and detection runs (docs/miner.md, "The tolerance"). */
export const MANIFEST_TOLERANCE = 4096;

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
  if (!identity) {
    // The miner serves -model-path under its file name without .gguf (docs/miner.md).
    const name = basename(net.modelPath).replace(/\.gguf$/i, '');
    identity = ggufFileIdentity(net.modelPath).then((f) => ({ id: `${name}:${f.sha256.slice(0, 8)}`, ...f }));
    identities.set(net.modelPath, identity);
  }
  return identity;
}

/** Whether the chain holds the manifest; one of another file under the id is an error. */
async function registered(net: Network, model: ModelIdentity): Promise<boolean> {
  const rpc = net.rpc(1);
  try {
    const have = await rpc.call('getmodelmanifest', [model.id]);
    if (have.gguf_sha256 !== model.sha256) throw new Error(`manifest ${model.id} on chain names another file (${have.gguf_sha256})`);
    return true;
  } catch (e) {
    if (e instanceof RpcError && e.code === -5) return false;
    throw e;
  } finally {
    rpc.close();
  }
}

/**
 * Registers the model's manifest unless the chain has it (bridge 1's environment file must be
 * written), mines it with node 1, and keeps its id in network.json.
 */
export async function registerManifest(net: Network, bridgeBin: string, progress: Progress): Promise<ModelIdentity> {
  const model = await modelIdentity(net);
  if (!(await registered(net, model))) {
    progress.step(`registering the manifest ${model.id} of ${net.modelPath} (cs-bridge manifest)`);
    const argv = [
      ...nodeArgv(bridgeBin),
      'manifest',
      `-env=${net.bridge(1).envFile}`,
      `-modelid=${model.id}`,
      `-tolerance=${MANIFEST_TOLERANCE}`,
      net.modelPath,
    ];
    await promisify(execFile)(process.execPath, argv, { timeout: 120_000, env: bridgeProcessEnv() }).catch(
      (e: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`cs-bridge manifest failed: ${e.stderr || e.stdout || e.message}`);
      },
    );
    const rpc = net.rpc(1, 120_000);
    try {
      await rpc.call('generatetoaddress', [1, await rpc.call('getnewaddress', ['network'])]);
    } finally {
      rpc.close();
    }
    if (!(await registered(net, model))) throw new Error(`the manifest ${model.id} did not confirm`);
  }
  if (net.state.manifestId !== model.id) net.save({ ...net.state, manifestId: model.id });
  return model;
}
