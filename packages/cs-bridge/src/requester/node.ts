/** The node connection of the requester's commands: from the flags, else the environment file's. */
import type { RpcClient } from '@cs/client';
import { rpcClientFor } from '../bridge.ts';
import { ConfigError, DEFAULT_RPC_URL, mergedValues } from '../config/env.ts';
import { describeNodeError } from '../node/node-check.ts';

export interface NodeFlags {
  readonly rpcurl: string | null;
  readonly rpcuser: string | null;
  readonly rpcpassword: string | null;
}

export function requesterNode(envFile: string, flags: NodeFlags): { rpc: RpcClient; rpcUrl: string } {
  const env = mergedValues(envFile);
  const rpcUrl = flags.rpcurl ?? env.CSD_RPC_URL ?? DEFAULT_RPC_URL;
  const rpc = rpcClientFor({ rpcUrl, rpcUser: flags.rpcuser ?? env.CSD_RPC_USER ?? '', rpcPass: flags.rpcpassword ?? env.CSD_RPC_PASS ?? '' });
  return { rpc, rpcUrl };
}

/** Runs `work` with the node; a node failure becomes one sentence (ConfigError), and the connection is closed. */
export async function withNode<T>(envFile: string, flags: NodeFlags, work: (rpc: RpcClient) => Promise<T>): Promise<T> {
  const { rpc, rpcUrl } = requesterNode(envFile, flags);
  try {
    return await work(rpc);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(describeNodeError(e, rpcUrl));
  } finally {
    rpc.close();
  }
}
