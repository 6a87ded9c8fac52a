import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nodeArgv } from './launch.ts';

test('shebang options are read only from `env -S node` followed by options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-argv-'));
  try {
    const cases: [string, string[]][] = [
      ['#!/usr/bin/env -S node --a=1   --b\n', ['--a=1', '--b']],
      ['#!/usr/bin/env node --a\n', []],
      ['#!/usr/bin/env -S node not-an-option\n', []],
      ['// no shebang\n', []],
      ['', []],
    ];
    for (const [i, [first, options]] of cases.entries()) {
      const file = join(dir, `bin${i}.js`);
      writeFileSync(file, `${first}console.log(1);\n`);
      assert.deepEqual(nodeArgv(file), [...options, file], JSON.stringify(first));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
