/**
 * JSON as bitcoin-cli's UniValue handles it: numbers keep the text they were written with, so an
 * amount such as 0.00000001 is sent and printed as written (JSON.parse would turn it into 1e-8,
 * and lose digits of integers beyond 2^53); object keys keep their order and duplicates. Pretty
 * printing follows UniValue's layout, which is what scripts parsing cs-cli output expect.
 */
export type JsonValue =
  | { readonly type: 'null' }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'number'; readonly text: string }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'array'; readonly items: readonly JsonValue[] }
  | { readonly type: 'object'; readonly entries: readonly (readonly [string, JsonValue])[] };

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const jsonNull: JsonValue = { type: 'null' };
export const jsonString = (value: string): JsonValue => ({ type: 'string', value });
export const jsonArray = (items: readonly JsonValue[]): JsonValue => ({ type: 'array', items });
export const jsonObject = (entries: readonly (readonly [string, JsonValue])[]): JsonValue => ({ type: 'object', entries });

/** The value of `key` in an object (the last one if repeated), or undefined. */
export function member(value: JsonValue, key: string): JsonValue | undefined {
  if (value.type !== 'object') return undefined;
  for (let i = value.entries.length - 1; i >= 0; i--) if (value.entries[i][0] === key) return value.entries[i][1];
  return undefined;
}

// UniValue's limit: deeper input is refused rather than risking the stack.
const MAX_DEPTH = 512;
const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** Parses one JSON value of any type (not only objects and arrays), surrounded by optional whitespace. */
export function parseJson(text: string): JsonValue {
  let pos = 0;
  const fail = (): never => {
    throw new JsonSyntaxError(`invalid JSON at offset ${pos}`);
  };
  const skip = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.exec(text);
    pos = WHITESPACE.lastIndex;
  };
  const token = (pattern: RegExp): string | null => {
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    if (!match) return null;
    pos = pattern.lastIndex;
    return match[0];
  };
  const literal = (word: string): boolean => {
    if (!text.startsWith(word, pos)) return false;
    pos += word.length;
    return true;
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail();
    skip();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: [string, JsonValue][] = [];
      skip();
      if (literal('}')) return jsonObject(entries);
      do {
        skip();
        const key = token(STRING) ?? fail();
        skip();
        if (!literal(':')) fail();
        entries.push([JSON.parse(key) as string, value(depth + 1)]);
        skip();
      } while (literal(','));
      if (!literal('}')) fail();
      return jsonObject(entries);
    }
    if (c === '[') {
      pos++;
      const items: JsonValue[] = [];
      skip();
      if (literal(']')) return jsonArray(items);
      do {
        items.push(value(depth + 1));
        skip();
      } while (literal(','));
      if (!literal(']')) fail();
      return jsonArray(items);
    }
    if (c === '"') return jsonString(JSON.parse(token(STRING) ?? fail()) as string);
    if (literal('true')) return { type: 'bool', value: true };
    if (literal('false')) return { type: 'bool', value: false };
    if (literal('null')) return jsonNull;
    return { type: 'number', text: token(NUMBER) ?? fail() };
  };
  const result = value(0);
  skip();
  if (pos !== text.length) fail();
  return result;
}

/** UniValue's escaping: JSON.stringify's, plus DEL as \u007f. */
function quote(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, '\\u007f');
}

/**
 * Serializes compactly (`indent` 0) or in UniValue's pretty layout: one member per line, nested
 * levels indented by `indent` spaces, and empty containers still broken over two lines ("[\n]").
 */
export function writeJson(value: JsonValue, indent = 0): string {
  const write = (v: JsonValue, level: number): string => {
    switch (v.type) {
      case 'null':
        return 'null';
      case 'bool':
        return v.value ? 'true' : 'false';
      case 'number':
        return v.text;
      case 'string':
        return quote(v.value);
      case 'array':
        return container(
          '[',
          ']',
          v.items.map((item) => write(item, level + 1)),
          level,
        );
      case 'object':
        return container(
          '{',
          '}',
          v.entries.map(([key, item]) => `${quote(key)}:${indent ? ' ' : ''}${write(item, level + 1)}`),
          level,
        );
    }
  };
  const container = (open: string, close: string, members: readonly string[], level: number): string => {
    if (!indent) return open + members.join(',') + close;
    const pad = ' '.repeat(indent * level);
    const lines = members.map((m) => pad + m).join(',\n');
    return `${open}\n${lines}${lines ? '\n' : ''}${' '.repeat(indent * (level - 1))}${close}`;
  };
  return write(value, 1);
}
