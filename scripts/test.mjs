#!/usr/bin/env node
// The whole test suite: Biome's lint and format check, the build of every package (tsc -b, which the
// tests' daemons run from dist/), a strict type check of the tests, benches and scripts, then every
// *.test.ts file through Node's built-in test runner, TypeScript loaded by tsx and the packages
// resolved to their sources (the @cs/source export condition). Extra arguments narrow the file
// list and skip the lint and type check, not the build:
//   npm test -- packages/consensus      runs only the tests under that folder.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function findTests(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = [...findTests(join(root, 'packages')), ...findTests(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((p) => f.startsWith(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

let failed = false;
console.log('build: scripts/build.mjs (tsc -b)');
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('build failed');
  process.exit(1);
}
if (filters.length === 0) {
  console.log('lint and format: biome check');
  const biome = spawnSync(process.execPath, [join(root, 'node_modules/@biomejs/biome/bin/biome'), 'check', '.'], { cwd: root, stdio: 'inherit' });
  if (biome.status !== 0) {
    console.error('lint or format check failed (npm run fix applies the fixes)');
    failed = true;
  }
  console.log('type check of the tests, benches and scripts: tsc --noEmit');
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) {
    console.error('type check failed');
    failed = true;
  }
}

const run = spawnSync(process.execPath, ['--conditions=@cs/source', '--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(failed || run.status !== 0 ? 1 : 0);
