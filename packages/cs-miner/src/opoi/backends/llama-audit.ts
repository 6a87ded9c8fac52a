/**
 * The audit of a VERIFIABLE answer (docs/miner.md, "Audits"): the prompt and the claimed token ids
 * are replayed in ONE controlledEvaluate call (teacher forcing), which evaluates them in one
 * prefill batch when the context's batch size holds them all, asking at each position for the
 * greedy argmax and the logit of the claimed token. A claimed token passes when the argmax's logit
 * is at most the manifest's tolerance above its own (so a near-tie accepts either); an answer
 * shorter than max_tokens must also stop, an end-of-generation token being within the tolerance of
 * the argmax after its last token; and the text must be what the ids detokenize to.
 */
import { manifestToleranceLogits, type OpoiAuditEvidence, type OpoiAuditReport, type OpoiAuditTask } from '@cs/stratum';
import type { LlamaModel, LlamaSequence, Token } from './llama-types.ts';
type EvaluateItem = import('node-llama-cpp').ControlledEvaluateInputItem;

export interface AuditEngine {
  readonly sequence: LlamaSequence;
  readonly model: LlamaModel;
  readonly eogTokens: readonly Token[];
  readonly vocabularySize: number;
}

/** The verdict on an answer whose every check ran; `failed` is reserved for a replay that could not. */
export async function replayAudit(engine: AuditEngine, task: OpoiAuditTask, tokenize: (prompt: Uint8Array) => Token[]): Promise<OpoiAuditReport> {
  const report = (
    verdict: OpoiAuditReport['verdict'],
    reason: string,
    position: number | null = null,
    evidence: OpoiAuditEvidence | null = null,
  ) => ({
    auditId: task.auditId,
    requestId: task.requestId,
    verdict,
    position,
    evidence,
    reason,
  });
  const { model, sequence, eogTokens, vocabularySize } = engine;
  const ids = task.tokenIds as Token[];
  const n = ids.length;
  if (n > task.maxTokens) return report('invalid', `${n} tokens, more than max_tokens ${task.maxTokens}`, task.maxTokens);
  // Checked before anything is evaluated: llama.cpp must never be handed a token outside its vocabulary.
  for (let i = 0; i < n; i++) {
    if (ids[i] >= vocabularySize) return report('invalid', `token ${ids[i]} is not in the vocabulary of ${vocabularySize}`, i);
    if (model.isEogToken(ids[i])) return report('invalid', `token ${ids[i]} ends generation, so the answer should have stopped before it`, i);
  }
  if (!Buffer.from(model.detokenize(ids)).equals(Buffer.from(task.text)))
    return report('invalid', 'the text is not what the token ids detokenize to');

  let prompt: Token[];
  try {
    prompt = tokenize(task.prompt);
  } catch (e) {
    return report('failed', (e as Error).message);
  }
  if (prompt.length === 0) return report('failed', "the prompt has no tokens under the manifest's rule");
  const stopCheck = n < task.maxTokens;
  // The context holds the prompt and every claimed token but the last, plus the last when its successor (the stop) is checked.
  const evaluated = [...prompt, ...ids.slice(0, stopCheck ? n : n - 1)];
  if (evaluated.length > sequence.contextSize)
    return report(
      'failed',
      `the prompt's ${prompt.length} tokens and the answer's ${n} do not fit the context of ${sequence.contextSize} (-llama-context)`,
    );

  const claimed = (i: number): EvaluateItem => [
    evaluated[prompt.length - 1 + i],
    { generateNext: { token: true, logits: { filter: { tokens: [ids[i]], includeSelected: true } } } },
  ];
  const items: EvaluateItem[] = evaluated.map((t) => t);
  for (let i = 0; i < n; i++) items[prompt.length - 1 + i] = claimed(i);
  if (stopCheck)
    items[evaluated.length - 1] = [
      evaluated.at(-1)!,
      { generateNext: { token: true, logits: { filter: { tokens: eogTokens, includeSelected: true } } } },
    ];

  let out: Awaited<ReturnType<LlamaSequence['controlledEvaluate']>>;
  try {
    out = await sequence.controlledEvaluate(items);
  } catch (e) {
    return report('failed', `the replay failed: ${(e as Error).message}`);
  }
  const tolerance = manifestToleranceLogits(task.manifest);
  for (let i = 0; i <= n; i++) {
    if (i === n && !stopCheck) break;
    const next = out[prompt.length - 1 + i]?.next;
    const argmax = next?.token;
    const logits = next?.logits;
    if (argmax === undefined || argmax === null || !logits) return report('failed', `the replay returned no logits at position ${i}`);
    const argmaxLogit = logits.get(argmax)!;
    if (i < n) {
      const claimedLogit = logits.get(ids[i])!;
      if (argmaxLogit - claimedLogit > tolerance)
        return report('invalid', `token ${ids[i]} at position ${i} is not the argmax ${argmax} within the tolerance`, i, {
          claimedToken: ids[i],
          claimedLogit,
          argmaxToken: argmax,
          argmaxLogit,
        });
      continue;
    }
    let eogLogit = Number.NEGATIVE_INFINITY;
    for (const t of eogTokens) eogLogit = Math.max(eogLogit, logits.get(t) ?? Number.NEGATIVE_INFINITY);
    if (argmaxLogit - eogLogit > tolerance)
      return report(
        'invalid',
        `the answer stops after ${n} of ${task.maxTokens} tokens, but no end-of-generation token is the argmax ${argmax} within the tolerance`,
        n,
        {
          claimedToken: null,
          claimedLogit: Number.isFinite(eogLogit) ? eogLogit : null,
          argmaxToken: argmax,
          argmaxLogit,
        },
      );
  }
  return report('valid', `${n} tokens replayed, each the argmax within the tolerance${stopCheck ? ', then the stop' : ''}`);
}
