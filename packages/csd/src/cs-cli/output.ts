import { member, writeJson, type JsonValue } from './json.ts';

/** What cs-cli prints and the status it exits with. */
export interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/**
 * Renders a JSON-RPC reply as bitcoin-cli does. A result: strings raw, null as nothing, anything
 * else as JSON indented by 2; exit 0. An error: `error code: <c>` and `error message:` then the
 * message on stderr; exit |code| (the shell sees it modulo 256, as with bitcoin-cli).
 */
export function renderReply(reply: JsonValue): Outcome {
  const error = member(reply, 'error');
  if (error && error.type !== 'null') {
    if (error.type !== 'object') return { stdout: '', stderr: `error: ${writeJson(error)}\n`, code: 1 };
    const code = member(error, 'code');
    const message = member(error, 'message');
    const lines =
      (code && code.type !== 'null' ? `error code: ${code.type === 'number' ? code.text : writeJson(code)}\n` : '') +
      (message?.type === 'string' ? `error message:\n${message.value}` : '');
    const status = code?.type === 'number' ? Math.abs(Math.trunc(Number(code.text))) : 1;
    return { stdout: '', stderr: lines === '' ? '' : `${lines}\n`, code: status };
  }
  const result = member(reply, 'result');
  if (!result || result.type === 'null') return { stdout: '', stderr: '', code: 0 };
  const text = result.type === 'string' ? result.value : writeJson(result, 2);
  return { stdout: `${text}\n`, stderr: '', code: 0 };
}
