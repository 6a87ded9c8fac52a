/**
 * Writing REST answers: a successful reply in the requested format, or an error as
 * `{"error": "<text>"}`. Bodies carry Content-Length, so keep-alive clients need no chunking;
 * JSON and hex end with a newline, as Core's do.
 */
import type { ServerResponse } from 'node:http';
import { type JsonValue, jsonTextOf } from '../format/json-value.ts';
import { CONTENT_TYPES, type RestFormat } from './format.ts';

/** What an endpoint answers; the format it was asked for decides which kind. */
export type RestReply =
  /** For .json. */
  | { readonly json: JsonValue }
  /** For .bin as is, for .hex as lower-case hex digits; `release` is called once they are sent or converted. */
  | { readonly bytes: Uint8Array; readonly release?: () => void }
  /** For .hex when it is not the hex of the .bin bytes (blockhashbyheight shows the hash in display order). */
  | { readonly text: string };

export function writeReply(res: ServerResponse, format: RestFormat, reply: RestReply): void {
  let body: string | Uint8Array;
  if ('json' in reply) body = `${jsonTextOf(reply.json) ?? JSON.stringify(reply.json)}\n`;
  else if ('text' in reply) body = `${reply.text}\n`;
  else if (format === 'hex') {
    body = `${Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength).toString('hex')}\n`;
    reply.release?.();
  } else {
    body = reply.bytes;
    // 'close' follows the body's hand-over to the system, or a connection cut short.
    if (reply.release) res.once('close', reply.release);
  }
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[format],
    'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
  });
  res.end(body);
}

export function writeError(res: ServerResponse, status: number, message: string, headers: Readonly<Record<string, string | number>> = {}): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, { ...headers, 'Content-Type': CONTENT_TYPES.json, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
