/**
 * Parameter specs and the argument checks every call goes through before its handler runs, in
 * Core's order and with Core's codes: named parameters mapped onto positions (-8 for unknown or
 * doubled names), the argument count (-1 with the method's help as message), JSON types (-3,
 * "Wrong type passed"), then per-type conversion (amounts -3, hex -8, integers -1).
 */
import { amountFromValue } from '@cs/runtime/amount';
import { RpcError, RpcErrorCode } from './errors.ts';
import { jsonTypeName, type JsonObject, type JsonTypeName, type JsonValue } from '../format/json-value.ts';

export type ParamType = 'number' | 'integer' | 'string' | 'boolean' | 'object' | 'array' | 'amount' | 'hex' | 'any';

/** What a handler receives for each parameter type. */
export interface ParamValueTypes {
  number: number;
  integer: number;
  string: string;
  boolean: boolean;
  object: JsonObject;
  array: readonly JsonValue[];
  amount: bigint; // base units
  hex: string;
  any: JsonValue;
}

export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly description: string;
  /** An omitted or null optional argument reaches the handler as its default, or as undefined without one. */
  readonly optional?: boolean;
  /** Given as the client would send it (an amount in coins); implies optional. */
  readonly default?: JsonValue;
  /**
   * Core's OMITTED placeholder: a deprecated argument before required ones. It still takes a
   * position (null or the handler's checks), but help presents it as optional: `( dummy )`.
   */
  readonly placeholder?: true;
}

export type ArgValue = ParamValueTypes[ParamType] | undefined;

type ArgOf<S> = S extends ParamSpec
  ? S extends { readonly default: JsonValue }
    ? ParamValueTypes[S['type']]
    : S extends { readonly optional: true }
      ? ParamValueTypes[S['type']] | undefined
      : ParamValueTypes[S['type']]
  : never;

/** The handler's argument tuple for a params spec declared `as const` (register() infers it so). */
export type ArgsOf<P extends readonly ParamSpec[]> = { readonly [K in keyof P]: ArgOf<P[K]> };

/** A spec checked once at registration, with what each call needs precomputed. */
export interface CompiledParams {
  readonly specs: readonly ParamSpec[];
  /** Arguments up to the last required one must be present (Core's IsValidNumArgs). */
  readonly required: number;
  readonly defaults: readonly ArgValue[];
}

/** The JSON type a parameter must arrive as, or null where the conversion itself checks (amount) or anything goes. */
const EXPECTED: Readonly<Record<ParamType, JsonTypeName | null>> = {
  number: 'number',
  integer: 'number',
  string: 'string',
  boolean: 'bool',
  object: 'object',
  array: 'array',
  amount: null,
  hex: 'string',
  any: null,
};

const NO_ARGS: readonly ArgValue[] = [];
const PARAM_NAME = /^[a-z_][a-z0-9_]*$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function isOptional(spec: ParamSpec): boolean {
  return spec.optional === true || spec.default !== undefined;
}

/** Validates a method's params spec; throws on a mistake in the spec itself (a programming error). */
export function compileParams(method: string, specs: readonly ParamSpec[]): CompiledParams {
  const seen = new Set<string>();
  let required = 0;
  specs.forEach((spec, i) => {
    if (!PARAM_NAME.test(spec.name)) throw new Error(`${method}: parameter name "${spec.name}" must be lower-case snake_case`);
    if (seen.has(spec.name)) throw new Error(`${method}: parameter "${spec.name}" declared twice`);
    seen.add(spec.name);
    if (spec.description.trim() === '') throw new Error(`${method}: parameter "${spec.name}" has no description`);
    if (!isOptional(spec)) {
      if (required !== i) throw new Error(`${method}: required parameter "${spec.name}" follows an optional one`);
      required = i + 1;
    }
  });
  const defaults = specs.map((spec) => {
    if (spec.default === undefined) return undefined;
    const expected = EXPECTED[spec.type];
    const mismatch = expected === null ? null : mismatchText(expected, spec.default);
    if (mismatch !== null) throw new Error(`${method}: default of "${spec.name}": ${mismatch}`);
    try {
      return convert(spec, spec.default);
    } catch (e) {
      throw new Error(`${method}: default of "${spec.name}": ${(e as Error).message}`);
    }
  });
  return { specs, required, defaults };
}

/**
 * Turns request params into the handler's argument list. `usage` is the method's help text,
 * which Core sends as the message of a wrong-count error.
 */
export function resolveArgs(compiled: CompiledParams, params: readonly JsonValue[] | JsonObject, usage: string): readonly ArgValue[] {
  const { specs } = compiled;
  // The common call of a method without parameters allocates nothing.
  if (specs.length === 0 && Array.isArray(params) && params.length === 0) return NO_ARGS;
  const values = Array.isArray(params) ? (params as readonly JsonValue[]) : namedToPositional(specs, params as JsonObject);
  if (values.length < compiled.required || values.length > specs.length) {
    throw new RpcError(RpcErrorCode.MISC_ERROR, usage);
  }
  let mismatches: Record<string, string> | undefined;
  for (let i = 0; i < values.length; i++) {
    const mismatch = typeMismatch(specs[i], values[i]);
    if (mismatch !== null) (mismatches ??= {})[`Position ${i + 1} (${specs[i].name})`] = mismatch;
  }
  if (mismatches !== undefined) {
    throw new RpcError(RpcErrorCode.TYPE_ERROR, `Wrong type passed:\n${JSON.stringify(mismatches, null, 4)}`);
  }
  const args: ArgValue[] = new Array(specs.length);
  for (let i = 0; i < specs.length; i++) {
    const value = values[i];
    args[i] = value === undefined || (value === null && isOptional(specs[i])) ? compiled.defaults[i] : convert(specs[i], value);
  }
  return args;
}

/** Core's RPCArg::MatchesType: null is fine for an optional argument, otherwise the JSON type must match. */
function typeMismatch(spec: ParamSpec, value: JsonValue | undefined): string | null {
  const expected = EXPECTED[spec.type];
  if (expected === null || value === undefined || (value === null && isOptional(spec))) return null;
  return mismatchText(expected, value);
}

function mismatchText(expected: JsonTypeName, value: JsonValue): string | null {
  const actual = jsonTypeName(value);
  return actual === expected ? null : `JSON value of type ${actual} is not of expected type ${expected}`;
}

function convert(spec: ParamSpec, value: JsonValue): ArgValue {
  switch (spec.type) {
    case 'integer':
      // Core reads these with UniValue::getInt, whose failure is a plain runtime error (-1).
      if (!Number.isSafeInteger(value)) throw new RpcError(RpcErrorCode.MISC_ERROR, 'JSON integer out of range');
      return value;
    case 'amount':
      return amountFromValue(value);
    case 'hex':
      // Core's ParseHexV wording and code.
      if (!HEX.test(value as string)) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${spec.name} must be hexadecimal string (not '${value as string}')`);
      }
      return value;
    default:
      return value;
  }
}

/**
 * Core's transformNamedArguments: each named value goes to its parameter's position, gaps before
 * a given parameter become null, and an `args` array supplies leading positional values.
 */
function namedToPositional(specs: readonly ParamSpec[], named: JsonObject): (JsonValue | undefined)[] {
  const remaining = new Map(Object.entries(named));
  const out: (JsonValue | undefined)[] = [];
  let hole = 0;
  let initialHole = 0;
  let firstNamed: string | undefined;
  for (const spec of specs) {
    if (remaining.has(spec.name)) {
      for (; hole > 0; hole--) out.push(null);
      firstNamed ??= spec.name;
      out.push(remaining.get(spec.name));
      remaining.delete(spec.name);
    } else {
      hole++;
      if (out.length === 0) initialHole = hole;
    }
  }
  const positional = remaining.get('args');
  if (Array.isArray(positional)) {
    remaining.delete('args');
    const leading = positional as readonly JsonValue[];
    if (firstNamed !== undefined && initialHole < leading.length) {
      throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Parameter ${firstNamed} specified twice both as positional and named argument`);
    }
    return assertNoneLeft(remaining, [...leading, ...out.slice(leading.length)]);
  }
  return assertNoneLeft(remaining, out);
}

function assertNoneLeft<T>(remaining: Map<string, unknown>, result: T): T {
  for (const name of remaining.keys()) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Unknown named parameter ${name}`);
  return result;
}

// ---- value parsers for arguments and fields inside them, with Core's codes and messages ----

const HASH_HEX = /^[0-9a-fA-F]{64}$/;
const HEX_DIGITS = /^[0-9a-fA-F]*$/;
export const INT32_MIN = -0x80000000;
export const INT32_MAX = 0x7fffffff;

/**
 * Core's UniValue::get_str: a value that is not a string is a runtime error (-1). Parameters the
 * registry types as 'string' never get here with another type; values inside objects do.
 */
export function jsonString(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(value ?? null)} is not of expected type string`);
}

/**
 * Core's UniValue::getInt<T>: a number that is not an integer within [min, max] fails as "JSON
 * integer out of range" (-1); another JSON type fails with the type error Core's UniValue throws.
 */
export function jsonInteger(value: JsonValue | undefined, min: number, max: number): number {
  if (typeof value !== 'number') {
    throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(value ?? null)} is not of expected type number`);
  }
  if (!Number.isInteger(value) || value < min || value > max) throw new RpcError(RpcErrorCode.MISC_ERROR, 'JSON integer out of range');
  return value;
}

/** Core's ParseHashV: a 64-digit hex hash (display order), returned lower-case as the chain's maps key it. */
export function parseHashV(value: JsonValue | undefined, name: string): string {
  const text = jsonString(value);
  if (HASH_HEX.test(text)) return text.toLowerCase();
  if (text.length !== 64) {
    throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${name} must be of length 64 (not ${text.length}, for '${text}')`);
  }
  throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
}

/**
 * Core's ParseVerbosity: an integer, or (where `allowBool`) a boolean meaning 1 or 0; null or
 * absent is the default.
 */
export function parseVerbosity(value: JsonValue | undefined, fallback: number, allowBool: boolean): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') {
    if (!allowBool) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Verbosity was boolean but only integer allowed');
    return value ? 1 : 0;
  }
  return jsonInteger(value, INT32_MIN, INT32_MAX);
}

/** Whether `text` is hex digits in pairs, possibly none (decodescript accepts the empty script). */
export function isHexOrEmpty(text: string): boolean {
  return text.length % 2 === 0 && HEX_DIGITS.test(text);
}
