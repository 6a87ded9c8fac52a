import { NETWORK_DEFAULTS } from '@cs/consensus/network-defaults';
import type { OptionCategory, OptionSpec, OptionTable } from './spec.ts';

const TITLES: Readonly<Record<OptionCategory, string>> = {
  general: 'Options:',
  chain: 'Chain selection options:',
  connection: 'Connection options:',
  rpc: 'RPC server options:',
  zmq: 'ZeroMQ notification options:',
  relay: 'Node relay options:',
  mining: 'Block creation options:',
  wallet: 'Wallet options:',
  debug: 'Debugging/Testing options:',
  // cs-miner's OPoI worker.
  inference: 'Inference (OPoI worker) options:',
  // cs-pool's listeners and its payments, cs-bridge ask's request.
  stratum: 'Stratum options:',
  payout: 'Payout options:',
  request: 'Request options:',
};

// Core's layout: the option indented 2, its text indented 7 and wrapped before column 79.
const OPTION_INDENT = '  ';
const TEXT_INDENT = '       ';
const WIDTH = 79;

function wrap(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && TEXT_INDENT.length + line.length + 1 + word.length > WIDTH) {
      lines.push(TEXT_INDENT + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(TEXT_INDENT + line);
  return lines.join('\n');
}

function defaultText(spec: OptionSpec<unknown>): string {
  const shown = Object.values(NETWORK_DEFAULTS).map((net) => ({ net: net.name, text: spec.show(spec.default(net)) }));
  if (shown.every((s) => s.text === shown[0].text)) return shown[0].text === '' ? '' : ` (default: ${shown[0].text})`;
  return ` (default: ${shown.map((s) => `${s.text} on ${s.net}`).join(', ')})`;
}

/** The options part of -help, grouped by category in the table's order. */
export function formatOptionsHelp(table: OptionTable): string {
  const groups = new Map<OptionCategory, string[]>();
  for (const [name, spec] of Object.entries(table)) {
    const usage = `${OPTION_INDENT}-${name}${spec.arg ? `=${spec.arg}` : ''}`;
    const suffix = spec.placement === 'command line' && spec.kind === 'bool' ? '' : defaultText(spec);
    const entries = groups.get(spec.category) ?? [];
    entries.push(`${usage}\n${wrap(spec.description + suffix)}\n`);
    groups.set(spec.category, entries);
  }
  return [...groups].map(([category, entries]) => `${TITLES[category]}\n\n${entries.join('\n')}`).join('\n');
}
