/**
 * Reads the `Result:` text of a csd method's help (Core's RPCResult layout: one field per line,
 * `"key" : value,   (type[, optional]) description`, nested objects and arrays indented, `...` for
 * repetition, alternatives under headings such as `for verbosity = 1`) into a JSON Schema. Where
 * the text is not in that layout (a free-form list of keys, "Same output as ..."), the schema is
 * widened to any JSON value there and the result is marked inexact: the generated types never
 * claim more than the help text says.
 */

/** The subset of JSON Schema (2020-12) the descriptions use; `{}` is any JSON value. */
export type Schema =
  | { readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'null'; readonly description?: string; readonly pattern?: string }
  | {
      readonly type: 'object';
      readonly description?: string;
      readonly properties: Readonly<Record<string, Schema>>;
      readonly required: readonly string[];
      /** false: no other keys; a schema: every other key (a map such as `vbavailable`). */
      readonly additionalProperties: Schema | false;
    }
  | { readonly type: 'array'; readonly description?: string; readonly items: Schema }
  | { readonly oneOf: readonly Schema[]; readonly description?: string }
  | { readonly description?: string };

export interface ParsedResult {
  readonly schema: Schema;
  /** Whether every line was in Core's layout; false where parts were widened to any JSON value. */
  readonly exact: boolean;
}

interface Line {
  readonly key?: string;
  readonly value: string;
  readonly type?: string;
  readonly optional: boolean;
  readonly description: string;
}

/** The inline forms: `[ "str", ... ]`, `[ n, ... ]`, `{ ... }` (an object the text does not detail), `[ { ... }, ... ]`. */
const INLINE = String.raw`\[ *(?:"(?:str|hex)"|n), *\.\.\. *\]|\{ *\.\.\. *\}|\[ *\{ *\.\.\. *\}, *\.\.\. *\]`;
const ENTRY = new RegExp(
  String.raw`^(?:"(?<key>[^"]*)"\s*:\s*)?(?<value>${INLINE}|\{|\[|"[^"]*"|n|xxx|true\|false|true|false|null|\.\.\.|\}|\])(?<comma>,)?` +
    String.raw`(?:\s+\((?<type>(?:string|numeric|boolean|json object|json array) or null|string|numeric|boolean|json object|json array|json null)(?<optional>, optional)?\)\s*(?<description>.*))?\s*$`,
);
const VALUE_START = /^(?:"|\{|\[|n\b|xxx\b|true\|false|null\b)/;
const ANY: Schema = {};
const UNREADABLE: Line = { value: '?', optional: false, description: '' };

export function parseResult(text: string): ParsedResult {
  const state = { exact: true };
  const alternatives = splitAlternatives(text).map((block) => parseAlternative(tokenizeBlock(block), state));
  const schema = alternatives.length === 1 ? alternatives[0] : { oneOf: alternatives };
  return { schema, exact: state.exact };
}

/** Blocks separated by blank lines, each without the heading lines above its value. */
function splitAlternatives(text: string): string[][] {
  const blocks: string[][] = [[]];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') {
      if (blocks[blocks.length - 1].length > 0) blocks.push([]);
      continue;
    }
    const block = blocks[blocks.length - 1];
    // A heading ("for verbosity = 1", "Otherwise", "(If ...)") comes before the value it introduces.
    if (block.length === 0 && !VALUE_START.test(raw.trimStart())) continue;
    block.push(raw);
  }
  return blocks.filter((b) => b.length > 0);
}

/**
 * Each line in Core's layout, null for a description continued from the line above (indented
 * deeper than that entry), UNREADABLE for anything else.
 */
function tokenizeBlock(block: readonly string[]): (Line | null)[] {
  let entryIndent = 0;
  return block.map((raw) => {
    const indent = raw.length - raw.trimStart().length;
    const line = tokenize(raw.trimStart());
    if (line !== null) {
      entryIndent = indent;
      return line;
    }
    return indent > entryIndent + 2 ? null : UNREADABLE;
  });
}

function tokenize(trimmed: string): Line | null {
  // `...,   Same output as verbosity = 1`: more fields than the text lists.
  if (trimmed.startsWith('...') && !trimmed.startsWith('...]'))
    return { value: '...', optional: false, description: trimmed.slice(3).replace(/^,/, '').trim() };
  const m = ENTRY.exec(trimmed);
  if (m?.groups === undefined) return null;
  const g = m.groups;
  return {
    key: g.key,
    value: g.value,
    type: g.type,
    optional: g.optional !== undefined,
    description: (g.description ?? '').trim(),
  };
}

function parseAlternative(lines: readonly (Line | null)[], state: { exact: boolean }): Schema {
  const first = lines[0];
  if (first === null) {
    state.exact = false;
    return ANY;
  }
  const cursor = { at: 0 };
  const schema = parseValue(lines, cursor, state);
  // Anything after the value was not understood.
  if (cursor.at < lines.length) state.exact = false;
  return schema;
}

/** Parses the value starting on line `cursor.at` and leaves the cursor after it. */
function parseValue(lines: readonly (Line | null)[], cursor: { at: number }, state: { exact: boolean }): Schema {
  const line = lines[cursor.at] as Line;
  cursor.at++;
  const description = line.description === '' ? undefined : line.description;
  if (line.value === '{' || line.value === '[') {
    const nested = line.value === '{' ? parseObject(lines, cursor, state, undefined) : parseArray(lines, cursor, state, undefined);
    // `(json object or null)`: the object (or array), or null in its place.
    return withDescription(line.type?.endsWith(' or null') ? { oneOf: [nested, { type: 'null' }] } : nested, description);
  }
  const inline = inlineSchema(line.value);
  if (inline !== null) {
    if (line.value.includes('{')) state.exact = false;
    return withDescription(inline, description);
  }
  const scalar = scalarSchema(line);
  if (scalar === null) {
    state.exact = false;
    return withDescription(ANY, description);
  }
  return withDescription(scalar, description);
}

const OPEN_OBJECT: Schema = { type: 'object', properties: {}, required: [], additionalProperties: ANY };

function inlineSchema(value: string): Schema | null {
  if (!value.endsWith('}') && !value.endsWith(']')) return null;
  if (value.startsWith('{')) return OPEN_OBJECT;
  if (value.includes('{')) return { type: 'array', items: OPEN_OBJECT };
  return { type: 'array', items: /^\[ *n/.test(value) ? { type: 'number' } : { type: 'string' } };
}

function scalarSchema(line: Line): Schema | null {
  if (line.type?.endsWith(' or null')) {
    const value = scalarSchema({ ...line, type: line.type.slice(0, -' or null'.length) });
    return value === null ? null : { oneOf: [value, { type: 'null' }] };
  }
  switch (line.type) {
    case 'string':
      return { type: 'string' };
    case 'numeric':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'json null':
      return { type: 'null' };
    case undefined:
      break;
    default:
      return null;
  }
  // Without an annotation, the placeholder itself says the type.
  if (line.value.startsWith('"')) return { type: 'string' };
  if (line.value === 'n' || line.value === 'xxx') return { type: 'number' };
  if (line.value === 'true|false' || line.value === 'true' || line.value === 'false') return { type: 'boolean' };
  if (line.value === 'null') return { type: 'null' };
  return null;
}

function parseObject(lines: readonly (Line | null)[], cursor: { at: number }, state: { exact: boolean }, description: string | undefined): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  let additional: Schema | false = false;
  let lastKey: string | undefined;
  while (cursor.at < lines.length) {
    const line = lines[cursor.at];
    if (line === null) {
      cursor.at++; // a description continued on the next line
      continue;
    }
    if (line.value === '}') {
      cursor.at++;
      if (Object.keys(properties).length === 0 && additional === false) {
        // `{ }` with a description such as "as listtransactions entries": fields the text does not list.
        state.exact = false;
        return withDescription(OPEN_OBJECT, description);
      }
      return withDescription({ type: 'object', properties, required, additionalProperties: additional }, description);
    }
    if (line.value === '...') {
      cursor.at++;
      const keys = Object.keys(properties);
      if (keys.length === 1 && lastKey !== undefined && additional === false) {
        // `"rulename" : n, ...`: a map whose keys are data, every value of the one shape shown.
        additional = properties[lastKey];
        delete properties[lastKey];
        required.length = 0;
      } else {
        // "Same output as ...": more fields than the text lists.
        additional = ANY;
        state.exact = false;
      }
      continue;
    }
    if (line.key === undefined) {
      // Not a field: the object has more than the text lists.
      additional = ANY;
      state.exact = false;
      cursor.at++;
      continue;
    }
    const key = line.key;
    properties[key] = parseValue(lines, cursor, state);
    if (!line.optional) required.push(key);
    lastKey = key;
  }
  state.exact = false; // never closed
  return withDescription({ type: 'object', properties, required, additionalProperties: ANY }, description);
}

function parseArray(lines: readonly (Line | null)[], cursor: { at: number }, state: { exact: boolean }, description: string | undefined): Schema {
  const items: Schema[] = [];
  while (cursor.at < lines.length) {
    const line = lines[cursor.at];
    if (line === null) {
      cursor.at++;
      continue;
    }
    if (line.value === ']') {
      cursor.at++;
      const itemSchema = items.length === 0 ? ANY : items.length === 1 ? items[0] : { oneOf: items };
      if (items.length === 0) state.exact = false;
      return withDescription({ type: 'array', items: itemSchema }, description);
    }
    if (line.value === '...') {
      cursor.at++;
      continue;
    }
    if (line.key !== undefined) {
      state.exact = false;
      cursor.at++;
      continue;
    }
    items.push(parseValue(lines, cursor, state));
  }
  state.exact = false;
  return withDescription({ type: 'array', items: ANY }, description);
}

function withDescription(schema: Schema, description: string | undefined): Schema {
  return description === undefined ? schema : { ...schema, description };
}
