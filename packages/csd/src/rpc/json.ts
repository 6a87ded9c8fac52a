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
