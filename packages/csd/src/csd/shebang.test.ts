import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodeArgv } from '@cs/runtime/launch';

const bin = (name: string) => fileURLToPath(new URL(`../../bin/${name}`, import.meta.url));

test("csd's shebang gives Node a larger young generation, and spawning csd passes it on", () => {
  assert.deepEqual(nodeArgv(bin('csd.js')), ['--max-semi-space-size=32', bin('csd.js')]);
  assert.deepEqual(nodeArgv(bin('cs-cli.js')), [bin('cs-cli.js')], 'a plain node shebang adds nothing');
});
