/**
 * JSON values as RPC requests carry them and RPC results return them. Object members may be
 * `undefined` so that results can use optional fields; JSON.stringify leaves those out.
 */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

export interface JsonObject {
  readonly [key: string]: JsonValue | undefined;
}

/** UniValue's type names, which Core's type errors quote ("JSON value of type string is not of expected type number"). */
export type JsonTypeName = 'null' | 'bool' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeName(value: JsonValue): JsonTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Core's UniValue refuses text nested deeper than this (MAX_JSON_DEPTH) as a parse error. Past a
 * few thousand levels JSON.stringify runs out of stack, so an answer echoing such an id could
 * not even be written.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * JSON text as a value, or undefined when it is not JSON or nests arrays and objects deeper than
 * MAX_JSON_DEPTH. The depth is measured on the parsed value without recursion.
 */
export function parseJson(text: string): JsonValue | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return value;
  const pending: JsonValue[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) return undefined;
    const children = Array.isArray(node) ? (node as readonly JsonValue[]) : Object.values(node as JsonObject);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return value;
}

/** JSON text of shared result objects (withJsonText), weakly held: it goes with its object. */
const jsonTexts = new WeakMap<object, string>();

/**
 * Serializes a result object once, for a result a handler hands out many times unchanged (a kept
 * answer): replies then splice in the text instead of serializing the object on every call. The
 * object must never change afterwards.
 */
export function withJsonText<T extends JsonObject>(value: T): T {
  jsonTexts.set(value, JSON.stringify(value));
  return value;
}

/** The text withJsonText kept for this value, if any. */
export function jsonTextOf(value: JsonValue): string | undefined {
  return typeof value === 'object' && value !== null ? jsonTexts.get(value) : undefined;
}
