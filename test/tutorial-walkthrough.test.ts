// docs/tutorial.md's steps that need no GPU (1 to 3), run from the tutorial's own text: `npm run
// network`, `npx cs-bridge ask …` as written, then the commands of step 3's table for the request
// it made. Two things are rewritten, and only these: the network's folder (`./network`, here a
// temporary directory) and its ports (17400 up, here a free block), so the test never takes a
// user's network or ports. Step 4 needs a GPU rig and a test network.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freeBasePort, NetworkRun } from './network-harness.ts';
import { commandLines, ROOT, shellBlocks, Walkthrough } from './walkthrough-harness.ts';

type Json = Record<string, unknown>;
const DEFAULT_BASE = 17400;

/** The inline commands of step 3's table, by the first words of their row. */
function step3Commands(): Map<string, string[]> {
  const text = readFileSync(join(ROOT, 'docs/tutorial.md'), 'utf8');
  const section = text.slice(text.indexOf('## 3. Watch it answered and paid'), text.indexOf('## 4.'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = /^\| (.+?) \| (.+) \|$/.exec(line);
    if (!cells) continue;
    const commands = [...cells[2].matchAll(/`((?:npx|curl) [^`]+)`/g)].map((m) => m[1]);
    if (commands.length > 0) rows.set(cells[1], commands);
  }
  return rows;
}

test('docs/tutorial.md steps 1-3: the network comes up, cs-bridge ask gets an answer paid on chain, step 3 shows it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-tutorial-'));
  const datadir = join(dir, 'network');
  const base = await freeBasePort();
  const rewrite = (command: string) =>
    command
      .replace(/(^|[\s=])network\//g, `$1${datadir}/`)
      .replace(/127\.0\.0\.1:(174\d\d)/g, (_, port: string) => `127.0.0.1:${base + Number(port) - DEFAULT_BASE}`);
  const [setup] = shellBlocks('docs/tutorial.md', '1. Run the network');
  assert.deepEqual(commandLines(setup), ['npm ci', 'npm run network']);
  // npm ci has run already (the test runs from an installed checkout); npm run network as the harness starts it.
  const run = new NetworkRun(datadir, [`-baseport=${base}`]);
  const w = new Walkthrough();
  try {
    await run.up();
    const [askBlock] = shellBlocks('docs/tutorial.md', '2. Ask a question');
    const [askLine] = commandLines(askBlock);
    assert.match(askLine, /^npx cs-bridge ask -env=network\/bridge\/\.env /);
    const out = await w.run(rewrite(askLine));
    assert.match(out, /Prompt accepted by the bridge\./);
    assert.match(out, /request FULFILLED/);
    const id = /REQUEST ([0-9a-f-]{36}) broadcast/.exec(out)![1];
    assert.match(out, /payout txid [0-9a-f]{64}/);

    const rows = step3Commands();
    const fill = { '<id>': () => id };
    const [rpcLine, restLine] = rows.get('the request on chain, its commits, winner and payout')!;
    for (const line of [rpcLine, restLine]) {
      const request = JSON.parse(await w.run(rewrite(line), fill)) as Json;
      assert.deepEqual([request.request_id, request.status], [id, 'FULFILLED']);
    }
    const [contentLine] = rows.get('the published answer')!;
    const content = JSON.parse(await w.run(rewrite(contentLine), fill)) as Json;
    assert.match(content.content_hex as string, /^([0-9a-f]{2})+$/);
    const [bridgeLine] = rows.get("the bridge's view: stage, which miner answered, commit, reveal and payout txids, the miner's share")!;
    const submission = JSON.parse(await w.run(rewrite(bridgeLine), fill)) as Json;
    assert.equal(submission.response_hex, content.content_hex, 'the bridge and the chain hold the same answer');
  } finally {
    if (run.proc.exitCode === null && run.proc.signalCode === null) {
      run.interrupt();
      await run.exited();
    }
    w.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
