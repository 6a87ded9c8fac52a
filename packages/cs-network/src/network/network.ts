/**
 * One network on disk: where each program's files live, which loopback port each listens on, and
 * the little state that must survive a restart (network.json: the base port, the model, the
 * miners' payout addresses, the model's manifest id). Secrets are never in network.json: the node cookies and the bridge's
 * owner-only environment file hold them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcClient } from '@cs/client';

/** Offsets from the base port; a new program adds its ports here (the block is 41 ports wide). */
export const PORT_OFFSETS = {
  node1Rpc: 0,
  node1P2p: 1,
  node1Ws: 2,
  node1Zmq: 3,
  node2Rpc: 10,
  node2P2p: 11,
  node2Ws: 12,
  poolStratum: 20,
  poolVardiff: 21,
  poolApi: 22,
  bridgeStratum: 30,
  bridgeApi: 31,
  bridge2Stratum: 32,
  bridge2Api: 33,
  dashboard: 40,
} as const;

export type PortName = keyof typeof PORT_OFFSETS;

export interface NetworkState {
  readonly basePort: number;
  /** The GGUF file the miners serve; null: the generated tiny model in models/. */
  readonly modelPath: string | null;
  /** Where each miner's pool and OPoI earnings go: addresses of node 2's wallet, made once. */
  readonly minerAddresses: readonly string[];
  /** The model manifest registered for the model (absent until then, and in networks made before manifests). */
  readonly manifestId?: string;
}

/** The two bridges: 1 on node 1's wallet, 2 on node 2's, each with one miner behind it. */
export type BridgeNumber = 1 | 2;

export interface BridgeFiles {
  /** Its owner-only environment file (a node cookie, the API key). */
  readonly envFile: string;
  readonly dataDir: string;
  readonly stratumPort: number;
  readonly apiUrl: string;
  /** The node whose wallet holds its OPoI address and which it follows. */
  readonly node: 1 | 2;
}

export interface NodeFiles {
  readonly datadir: string;
  readonly confFile: string;
  readonly cookieFile: string;
  readonly debugLog: string;
  readonly rpcUrl: string;
}

export class Network {
  /** How miner 1 corrupts its VERIFIABLE answers this run (-corruptanswers, never saved), or null. */
  corruptAnswers: string | null = null;

  constructor(
    readonly dir: string,
    public state: NetworkState,
  ) {}

  static stateFile(dir: string): string {
    return join(dir, 'network.json');
  }

  /** The saved state, or null for a directory that holds no network yet. */
  static readState(dir: string): NetworkState | null {
    const file = Network.stateFile(dir);
    if (!existsSync(file)) return null;
    return JSON.parse(readFileSync(file, 'utf8')) as NetworkState;
  }

  /** Whole or not at all: a crash while saving leaves the previous state. */
  save(state: NetworkState): void {
    this.state = state;
    mkdirSync(this.dir, { recursive: true });
    const file = Network.stateFile(this.dir);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  port(name: PortName): number {
    return this.state.basePort + PORT_OFFSETS[name];
  }

  /** Node 1 or 2: csd's data directory and files, as csd lays them out for regtest. */
  node(n: 1 | 2): NodeFiles {
    const datadir = this.path(`node${n}`);
    return {
      datadir,
      confFile: join(datadir, 'cs.conf'),
      cookieFile: join(datadir, 'regtest', '.cookie'),
      debugLog: join(datadir, 'regtest', 'debug.log'),
      rpcUrl: `http://127.0.0.1:${this.port(n === 1 ? 'node1Rpc' : 'node2Rpc')}`,
    };
  }

  /** An RPC client of node `n`, authenticated with its cookie; the caller closes it. */
  rpc(n: 1 | 2, timeoutMs = 30_000): RpcClient {
    const files = this.node(n);
    return new RpcClient({ url: files.rpcUrl, auth: { cookieFile: files.cookieFile }, timeoutMs });
  }

  /** Bridge 1 keeps the directory `bridge/` it had when the network had one bridge. */
  bridge(n: BridgeNumber): BridgeFiles {
    const dir = this.path(n === 1 ? 'bridge' : `bridge${n}`);
    return {
      envFile: join(dir, '.env'),
      dataDir: join(dir, 'data'),
      stratumPort: this.port(n === 1 ? 'bridgeStratum' : 'bridge2Stratum'),
      apiUrl: `http://127.0.0.1:${this.port(n === 1 ? 'bridgeApi' : 'bridge2Api')}`,
      node: n,
    };
  }

  get dashboardUrl(): string {
    return `http://127.0.0.1:${this.port('dashboard')}`;
  }

  /** cs-dashboard's conf file (it names the bridge API key: owner-only). */
  get dashboardConfFile(): string {
    return this.path('dashboard', 'dashboard.json');
  }

  get poolApiUrl(): string {
    return `http://127.0.0.1:${this.port('poolApi')}`;
  }

  /** The manifest id cs-network registered for the model, once registered (manifest.json). */
  get manifestFile(): string {
    return this.path('manifest.json');
  }

  get modelPath(): string {
    return this.state.modelPath ?? this.path('models', 'tiny.gguf');
  }

  logFile(program: string): string {
    return this.path('logs', `${program}.log`);
  }

  get pidFile(): string {
    return this.path('run', 'pids.json');
  }
}
