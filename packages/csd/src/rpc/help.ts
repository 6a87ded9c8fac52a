/**
 * Help texts in the layout of Core's RPCHelpMan: a one-line signature, the description, then
 * Arguments:, Result: and Examples: sections, the examples shown both as a cs-cli command and as
 * the equivalent curl call against the default RPC port.
 */
import type { JsonValue } from '../format/json-value.ts';
import { isOptional, type ParamSpec, type ParamType } from './params.ts';

export const DEFAULT_RPC_PORT = 16180;

export interface RpcExample {
  /** Positional arguments, as JSON values. */
  readonly args: readonly JsonValue[];
  /** A line shown above the example, e.g. what it demonstrates. */
  readonly description?: string;
}

export interface RpcMethodHelp {
  readonly name: string;
  readonly description: string;
  readonly params: readonly ParamSpec[];
  /** The result as Core documents it: its shape, one field per line with type and meaning. */
  readonly result: string;
  readonly examples: readonly RpcExample[];
}

/** Core's words for each type in the Arguments: section. */
const TYPE_WORDS: Readonly<Record<ParamType, string>> = {
  number: 'numeric',
  integer: 'numeric',
  string: 'string',
  boolean: 'boolean',
  object: 'json object',
  array: 'json array',
  amount: 'numeric or string',
  hex: 'string',
  any: 'any',
};

/** `name "arg1" arg2 ( arg3 "arg4" )`: string arguments quoted, optional ones in parentheses. */
export function signature(help: RpcMethodHelp): string {
  let line = help.name;
  let inOptional = false;
  for (const spec of help.params) {
    if (spec.placeholder && !inOptional) {
      line += ` ( ${spec.name} )`;
      continue;
    }
    if (isOptional(spec) && !inOptional) line += ' (';
    inOptional ||= isOptional(spec);
    line += spec.type === 'string' || spec.type === 'hex' ? ` "${spec.name}"` : ` ${spec.name}`;
  }
  return inOptional ? `${line} )` : line;
}

export function fullHelp(help: RpcMethodHelp): string {
  let text = `${signature(help)}\n\n${help.description.trim()}\n`;
  if (help.params.length > 0) {
    const lefts = help.params.map((spec, i) => `${i + 1}. ${spec.name}`);
    const pad = Math.max(...lefts.map((l) => l.length)) + 4;
    text += '\nArguments:\n';
    help.params.forEach((spec, i) => {
      text += `${lefts[i].padEnd(pad)}${indentContinuation(describeParam(spec), pad)}\n`;
    });
  }
  text += `\nResult:\n${help.result.trim()}\n`;
  text += '\nExamples:\n';
  for (const example of help.examples) {
    if (example.description !== undefined) text += `${example.description}\n`;
    text += `> cs-cli ${[help.name, ...example.args.map(cliArg)].join(' ')}\n`;
    text += `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id": "curltest", "method": "${help.name}", "params": [${example.args
      .map((a) => JSON.stringify(a))
      .join(', ')}]}' -H 'content-type: application/json' http://127.0.0.1:${DEFAULT_RPC_PORT}/\n`;
  }
  return text.trimEnd();
}

/** Core's `help` listing: `== Category ==` headings, one signature per method, categories and names sorted. */
export function helpIndex(methods: readonly (RpcMethodHelp & { readonly category: string })[]): string {
  const sorted = [...methods].sort((a, b) => compare(a.category, b.category) || compare(a.name, b.name));
  const blocks: string[] = [];
  let category: string | undefined;
  for (const method of sorted) {
    if (method.category !== category) {
      category = method.category;
      blocks.push(`== ${category} ==`);
    }
    blocks[blocks.length - 1] += `\n${signature(method)}`;
  }
  return blocks.join('\n\n');
}

function describeParam(spec: ParamSpec): string {
  const presence =
    spec.default !== undefined ? `optional, default=${JSON.stringify(spec.default)}` : isOptional(spec) || spec.placeholder ? 'optional' : 'required';
  return `(${TYPE_WORDS[spec.type]}, ${presence}) ${spec.description.trim()}`;
}

/** Continuation lines of a multi-line description line up under its first line. */
function indentContinuation(text: string, pad: number): string {
  return text.replace(/\n/g, `\n${' '.repeat(pad)}`);
}

/** How the argument is typed on a shell command line: strings in double quotes, JSON structures in single quotes. */
function cliArg(value: JsonValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return `'${JSON.stringify(value)}'`;
  return String(value);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
