// What the VERIFIABLE tests share: a fake GGUF file registered as a manifest with `cs-bridge
// manifest`, bridges that stake serving it (OPOI_SERVES), and scripted miners that hold the file.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpoiModelFile } from '@cs/stratum';
import { BRIDGE_BIN, BridgeProcess, type Chain, eventually, fundedAddress } from './bridge-harness.ts';

export const MANIFEST_ID = 'tiny-verifiable.Q8';

/** A file standing in for a GGUF model (the scripted miners never load it): what a manifest names. */
export function modelFile(): { path: string; file: OpoiModelFile } {
  const bytes = randomBytes(4096 + 17);
  const path = join(mkdtempSync(join(tmpdir(), 'cs-bridge-gguf-')), 'tiny.gguf');
  writeFileSync(path, bytes);
  return { path, file: { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length } };
}

/** Runs a cs-bridge command with `envFile` to completion: its exit and output. */
export function command(envFile: string, args: readonly string[]): Promise<{ exit: number | string; output: string }> {
  const proc = spawn(process.execPath, [BRIDGE_BIN, ...args.slice(0, 1), `-env=${envFile}`, ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ exit: code ?? signal ?? 0, output })));
}

/** A bridge staking a fresh address and serving the manifest, its stake ACTIVE. */
export async function servingBridge(
  chain: Chain,
  values: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<{ bridge: BridgeProcess; address: string }> {
  const opoi = await fundedAddress(chain, 5);
  const bridge = await BridgeProcess.create(chain, {
    OPOI_ADDRESSES: opoi.address,
    OPOI_STAKE_UTXO: opoi.utxo,
    OPOI_SERVES: MANIFEST_ID,
    POOL_FEE_PERCENT: '2',
    MIN_PAYOUT: '0.00001',
    ASSIGN_TIMEOUT_SECS: '20',
    ...values,
  });
  await bridge.start(env);
  await eventually(async () => (bridge.output.includes('stake sent') ? true : undefined), 'the STAKE');
  return { bridge, address: opoi.address };
}

/** Waits for a line of the bridge's log (JSON lines: the msg field). */
export function logged(bridge: BridgeProcess, text: string, times = 1): Promise<true> {
  return eventually(async () => (bridge.output.split(text).length - 1 >= times ? true : undefined), `"${text}" in the bridge log`);
}
