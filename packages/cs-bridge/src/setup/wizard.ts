/**
 * The setup wizard (docs/bridge.md, "Setup"). Manual writes the documented file and exits;
 * Automatic asks each value (existing ones are the defaults, never overwritten unasked), tests the
 * node and prints its height, then the stake step: the OPoI address's spendable coins as a table
 * to pick the collateral from, or skip. Without a terminal it refuses at once instead of waiting
 * for answers nobody can give. Returns true when the bridge may go on starting.
 */
import { createInterface, type Interface } from 'node:readline';
import { ConfigError, DEFAULT_RPC_URL, VARIABLES, mergedValues, missingVariables, readEnvFile } from '../config/env.ts';
import { rpcClientFor } from '../bridge.ts';
import { checkNode, describeNodeError, readStake, spendableUtxos } from '../node/node-check.ts';
import { newApiKey, writeEnvFile } from './env-file.ts';

export interface WizardOptions {
  /** full: every missing value, then the stake; stake: only the stake step. */
  readonly mode: 'full' | 'stake';
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

/** Answers as lines, queued: a line typed (or piped) before its question is not lost. */
class Prompter {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;
  private readonly rl: Interface;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.rl = createInterface({ input, terminal: false });
    this.rl.on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      this.waiting?.(null);
    });
  }

  say(text: string): void {
    this.output.write(`${text}\n`);
  }

  async ask(question: string, fallback: string): Promise<string> {
    this.output.write(fallback === '' ? `${question}: ` : `${question} [${fallback}]: `);
    const line = this.lines.shift() ?? (this.ended ? null : await new Promise<string | null>((r) => (this.waiting = r)));
    if (line === null) throw new ConfigError('input ended before the wizard finished');
    return line.trim() === '' ? fallback : line.trim();
  }

  close(): void {
    this.rl.close();
  }
}

export async function runWizard(envFile: string, opts: WizardOptions): Promise<boolean> {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stdout;
  if (!opts.input && process.stdin.isTTY !== true) {
    throw new ConfigError('the setup wizard needs a terminal; without one, write the env file from .env.example (docs/bridge.md)');
  }
  const p = new Prompter(input, output);
  try {
    return await wizard(envFile, opts.mode, p);
  } finally {
    p.close();
  }
}

async function wizard(envFile: string, mode: 'full' | 'stake', p: Prompter): Promise<boolean> {
  let values = mergedValues(envFile);
  if (mode === 'full') {
    const missing = missingVariables(values);
    p.say(`cs-bridge setup: ${envFile}${missing.length > 0 ? ` lacks ${missing.join(', ')}` : ' is complete'}.`);
    const choice = (await p.ask('Manual (write the file to edit, then exit) or Automatic (answer questions here)? m/a', 'a')).toLowerCase();
    if (choice.startsWith('m')) {
      writeEnvFile(envFile, readEnvFile(envFile));
      p.say(`Wrote ${envFile} (owner-only); fill in the empty values, then run cs-bridge again.`);
      return false;
    }
    const existing = readEnvFile(envFile);
    const answers: Record<string, string> = {};
    for (const v of VARIABLES.filter((x) => x.asked)) {
      const current = values[v.name] ?? '';
      const suggestion = current !== '' ? current : v.name === 'CSD_RPC_URL' ? DEFAULT_RPC_URL : v.default;
      const shown = v.name === 'CSD_RPC_PASS' || v.name === 'OPOI_REQUESTER_API_KEY' ? (current !== '' ? '(keep current)' : '') : suggestion;
      const answer = await p.ask(`${v.name} — ${v.help}`, shown);
      let value = answer === '(keep current)' ? current : answer;
      if (v.name === 'OPOI_REQUESTER_API_KEY' && value === '') {
        value = newApiKey();
        p.say(`Generated OPOI_REQUESTER_API_KEY (shown once; requesters send it in x-opoi-api-key): ${value}`);
      }
      if (value !== (existing[v.name] ?? '')) answers[v.name] = value;
    }
    writeEnvFile(envFile, answers);
    values = mergedValues(envFile);
  }
  const rpc = rpcClientFor({ rpcUrl: values.CSD_RPC_URL ?? DEFAULT_RPC_URL, rpcUser: values.CSD_RPC_USER ?? '', rpcPass: values.CSD_RPC_PASS ?? '' });
  try {
    const address = values.OPOI_ADDRESSES ?? '';
    let info: Awaited<ReturnType<typeof checkNode>>;
    try {
      info = await checkNode(rpc, values.CSD_RPC_URL ?? DEFAULT_RPC_URL, address);
    } catch (e) {
      p.say(`Node check failed: ${(e as Error).message}`);
      p.say(`Fix ${envFile} (or run cs-bridge setup again) and retry.`);
      return false;
    }
    p.say(`Connected to the node (${info.chain}): chain height ${info.height}.`);
    let stake: Awaited<ReturnType<typeof readStake>>;
    try {
      stake = await readStake(rpc, address);
    } catch (e) {
      p.say(`Cannot read the stake: ${describeNodeError(e, values.CSD_RPC_URL ?? DEFAULT_RPC_URL)}`);
      return false;
    }
    if (stake.kind === 'stake' && stake.stake.status !== 'UNSTAKED') {
      p.say(`${address} has a stake (${stake.stake.status}); no collateral to pick.`);
      return true;
    }
    const coins = (await spendableUtxos(rpc)).filter((c) => c.address === address);
    if (coins.length === 0) {
      p.say(`No UTXOs available: the wallet has no spendable confirmed coin of ${address}.`);
      p.say(`Fund it (send the stake collateral plus fees to ${address}), wait for a confirmation, and rerun.`);
      return false;
    }
    p.say('Spendable UTXOs of the OPoI address (the stake locks the network minimum from the chosen one):');
    p.say('  #  txid                                                              vout  amount          confirmations  address');
    coins.forEach((c, i) => {
      p.say(
        `${String(i + 1).padStart(3)}  ${c.txid}  ${String(c.vout).padStart(4)}  ${c.amount.toFixed(8).padStart(14)}  ${String(c.confirmations).padStart(13)}  ${c.address}`,
      );
    });
    for (;;) {
      const pick = await p.ask(`Number of the UTXO to stake, or s to skip`, 's');
      if (pick.toLowerCase() === 's') {
        p.say('Skipped: the bridge cannot take work until the address has an ACTIVE stake.');
        return false;
      }
      const n = Number(pick);
      if (Number.isInteger(n) && n >= 1 && n <= coins.length) {
        const c = coins[n - 1];
        writeEnvFile(envFile, { OPOI_STAKE_UTXO: `${c.txid}:${c.vout}` });
        p.say(`OPOI_STAKE_UTXO=${c.txid}:${c.vout} saved; the bridge stakes it when it starts.`);
        return true;
      }
      p.say(`Type a number from 1 to ${coins.length}, or s.`);
    }
  } finally {
    rpc.close();
  }
}
