/** Opens the configured backends, one per served model name. */
import type { ModelEntry } from '../config/config.ts';
import type { InferenceBackend } from './backends/backend.ts';
import { LlamaBackend, type LlamaSettings } from './backends/llama.ts';
import { OllamaBackend } from './backends/ollama.ts';
import { OpenAiBackend } from './backends/openai.ts';

export async function openBackends(models: readonly ModelEntry[], llama: LlamaSettings): Promise<Map<string, InferenceBackend>> {
  const out = new Map<string, InferenceBackend>();
  try {
    for (const { name, backend } of models) {
      if (backend.kind === 'llama') {
        try {
          out.set(name, await LlamaBackend.open(backend.path, llama));
        } catch (e) {
          throw new Error(`model '${name}': cannot load ${backend.path} in the embedded engine: ${(e as Error).message}`);
        }
      } else if (backend.kind === 'ollama') out.set(name, new OllamaBackend(backend.url, backend.remoteModel));
      else out.set(name, new OpenAiBackend(backend.url, backend.remoteModel, process.env.OPENAI_API_KEY || null));
    }
  } catch (e) {
    await Promise.all([...out.values()].map((b) => b.close()));
    throw e;
  }
  return out;
}
