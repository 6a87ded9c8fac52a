/**
 * A llama.cpp SentencePiece ("llama") vocabulary for generated models: <unk>, <s>, </s>, the 256
 * byte tokens and the word boundary U+2581 (the tiny model's whole vocabulary), then as many
 * merged pieces as asked for. The pieces are printable ASCII characters, with and without the word
 * boundary, then lower-case letter pairs and triples, with and without it: every piece of more
 * than one character is the concatenation of two shorter pieces, so llama.cpp's SentencePiece
 * tokenizer (which merges adjacent symbols whose concatenation is in the vocabulary, highest
 * score first) reaches them all, and text it cannot merge falls back to the byte tokens. Longer
 * pieces score higher, so a word becomes as few tokens as the vocabulary allows.
 */

// llama.cpp's token types.
const TOKEN_NORMAL = 1;
const TOKEN_UNKNOWN = 2;
const TOKEN_CONTROL = 3;
const TOKEN_BYTE = 6;

const WORD = '\u2581';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export interface Vocabulary {
  readonly tokens: readonly string[];
  readonly scores: readonly number[];
  readonly types: readonly number[];
}

function* pieces(): Generator<string> {
  const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => c !== ' ');
  for (const c of printable) yield c;
  for (const c of printable) yield WORD + c;
  const pairs = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));
  for (const p of pairs) yield p;
  for (const p of pairs) yield WORD + p;
  const triples = pairs.flatMap((p) => [...LETTERS].map((c) => p + c));
  for (const t of triples) yield t;
  for (const t of triples) yield WORD + t;
}

/** The byte-level vocabulary and then `merged` pieces (at most 36,692: the generator's supply). */
export function llamaVocabulary(merged: number): Vocabulary {
  const bytes = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  const tokens = ['<unk>', '<s>', '</s>', ...bytes, WORD];
  const types = tokens.map((_, i) => (i === 0 ? TOKEN_UNKNOWN : i < 3 ? TOKEN_CONTROL : i < 259 ? TOKEN_BYTE : TOKEN_NORMAL));
  const scores = tokens.map(() => 0);
  for (const piece of pieces()) {
    if (tokens.length - 260 >= merged) break;
    tokens.push(piece);
    types.push(TOKEN_NORMAL);
    scores.push([...piece].length);
  }
  if (tokens.length - 260 < merged) throw new RangeError(`at most ${tokens.length - 260} merged pieces can be generated`);
  return { tokens, scores, types };
}
