// Local HTTP servers speaking Ollama's /api/generate and the OpenAI /v1/chat/completions API, for
// the miner's backend tests. Their "model" is a deterministic function of the prompt, so a test
// knows the exact answer and token count to expect; every request body is kept for inspection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The test model: the prompt's words reversed, one token per word, at most maxTokens words. */
export function expectedAnswer(prompt: string, maxTokens: number): { text: string; tokens: number } {
  const words = prompt
    .split(/\s+/)
    .filter((w) => w !== '')
    .reverse()
    .slice(0, maxTokens);
  return { text: words.join(' '), tokens: words.length };
}

export class InferenceServer {
  readonly requests: Record<string, unknown>[] = [];
  private readonly server: Server;
  port = 0;
  /** When set, requests are held without an answer (a hung backend). */
  hang = false;

  constructor(readonly api: 'ollama' | 'openai') {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const json = JSON.parse(body) as Record<string, unknown>;
      this.requests.push(json);
      if (this.hang) return;
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (this.api === 'ollama' && req.url === '/api/generate') {
        const options = json.options as { num_predict: number };
        const answer = expectedAnswer(String(json.prompt), options.num_predict);
        return reply(200, { model: json.model, response: answer.text, done: true, eval_count: answer.tokens });
      }
      if (this.api === 'openai' && req.url === '/v1/chat/completions') {
        const messages = json.messages as { content: string }[];
        const answer = expectedAnswer(messages[0].content, json.max_tokens as number);
        return reply(200, {
          object: 'chat.completion',
          model: json.model,
          choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: answer.tokens, total_tokens: 3 + answer.tokens },
        });
      }
      reply(404, { error: `no route ${req.url}` });
    });
  }
}
