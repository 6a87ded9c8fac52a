/**
 * A tiny llama-architecture model with random weights, for tests: a few layers, a byte-level
 * vocabulary (llama.cpp's SentencePiece tokenizer with the 256 byte tokens, <unk>, <s>, </s>
 * and the word boundary), every weight drawn from a seeded generator so that one seed always gives
 * the same file. It answers nonsense, but it runs through the real llama.cpp engine. A shape with
 * `pieces` adds that many merged SentencePiece pieces to the vocabulary (vocabulary.ts).
 */
import { encodeGguf, type MetadataValue, type Tensor } from './gguf-writer.ts';
import { llamaVocabulary } from './vocabulary.ts';

export interface TinyLlamaShape {
  readonly layers: number;
  readonly embedding: number;
  readonly heads: number;
  readonly feedForward: number;
  readonly context: number;
  /** Merged pieces after the byte-level vocabulary; 0 or absent: bytes only. */
  readonly pieces?: number;
}

export const TINY_LLAMA: TinyLlamaShape = { layers: 2, embedding: 64, heads: 4, feedForward: 128, context: 512 };

/** mulberry32: a small, well-mixed 32-bit generator; enough for weights and test inputs, nothing else. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function tinyLlamaGguf(seed: number, shape: TinyLlamaShape = TINY_LLAMA): Buffer {
  const random = seededRandom(seed);
  const { tokens: vocab, scores, types } = llamaVocabulary(shape.pieces ?? 0);
  const { layers, embedding: e, heads, feedForward: ff, context } = shape;

  const metadata = new Map<string, MetadataValue>([
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: `tiny-llama-seed-${seed}` }],
    ['general.file_type', { type: 'u32', value: 0 }],
    ['llama.context_length', { type: 'u32', value: context }],
    ['llama.embedding_length', { type: 'u32', value: e }],
    ['llama.block_count', { type: 'u32', value: layers }],
    ['llama.feed_forward_length', { type: 'u32', value: ff }],
    ['llama.rope.dimension_count', { type: 'u32', value: e / heads }],
    ['llama.attention.head_count', { type: 'u32', value: heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.vocab_size', { type: 'u32', value: vocab.length }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab }],
    ['tokenizer.ggml.scores', { type: 'f32[]', value: scores }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    ['tokenizer.ggml.add_space_prefix', { type: 'bool', value: false }],
  ]);

  // Weights uniform in [-scale, scale]; norms at 1 so activations keep their size.
  const weights = (name: string, dims: number[], scale: number): Tensor => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * scale;
    return { name, dims, data };
  };
  const ones = (name: string, n: number): Tensor => ({ name, dims: [n], data: new Float32Array(n).fill(1) });
  const proj = 1 / Math.sqrt(e);
  // Uniform weights in [-a, a] have a standard deviation of a/√3, so a projection with a = 1/√e
  // shrinks a vector by √3, and a head that attends evenly averages n values down by √n: at the
  // plain scale attention's view of the prompt is a small fraction of the residual stream and the
  // model is nearly a bigram model (answers to different prompts ending alike were the same in 7
  // of 48 pairs, so an audit could not tell them apart). Values and output at 3x bring that view
  // up to about one token's embedding; queries and keys at 3x make heads pick particular tokens
  // rather than average them all. Then 48 of 48 such prompts had distinct answers.
  const attention = 3 * proj;

  const tensors: Tensor[] = [weights('token_embd.weight', [e, vocab.length], 1)];
  for (let l = 0; l < layers; l++) {
    const p = `blk.${l}`;
    tensors.push(
      ones(`${p}.attn_norm.weight`, e),
      weights(`${p}.attn_q.weight`, [e, e], attention),
      weights(`${p}.attn_k.weight`, [e, e], attention),
      weights(`${p}.attn_v.weight`, [e, e], attention),
      weights(`${p}.attn_output.weight`, [e, e], attention),
      ones(`${p}.ffn_norm.weight`, e),
      weights(`${p}.ffn_gate.weight`, [e, ff], proj),
      weights(`${p}.ffn_up.weight`, [e, ff], proj),
      weights(`${p}.ffn_down.weight`, [ff, e], 1 / Math.sqrt(ff)),
    );
  }
  // The control tokens' output rows (<unk>, <s>, </s>: ggml's row t is data[t·e, (t+1)·e)) at zero: their logit is always 0,
  // below the maximum of the other tokens' random logits, so a generated model never stops at once with an empty answer
  // (seed 7 did for a question of the bench) and answers run to max_tokens, as a test or bench of n tokens needs.
  const output = weights('output.weight', [e, vocab.length], proj * 4);
  output.data.fill(0, 0, 3 * e);
  tensors.push(ones('output_norm.weight', e), output);
  return encodeGguf(metadata, tensors);
}
