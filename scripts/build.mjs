#!/usr/bin/env node
// Builds the packages to JavaScript (tsc -b over their project references): all of them after a
// plain `npm ci`, and after a partial install (`npm ci -w packages/cs-miner`) those whose
// dependencies are installed, so that installing one program builds that program instead of
// failing on the others; then bundles cs-cli. `npm ci` runs this as the root `prepare` script;
// `npm run build` too.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// npm puts a dependency in the root's node_modules, or in the workspace's own when versions clash.
const installed = (name, workspace = '.') =>
  existsSync(join(root, 'node_modules', name, 'package.json')) || existsSync(join(root, workspace, 'node_modules', name, 'package.json'));

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!installed('typescript') || !installed('@types/node')) {
  console.error('build: typescript and @types/node are not installed (npm ci installs them); nothing built');
  process.exit(1);
}

const workspaces = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const manifests = new Map(workspaces.map((dir) => [dir, JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))]));
const external = (m) => Object.keys(m.dependencies ?? {}).filter((d) => !d.startsWith('@cs/'));
const ready = workspaces.filter((dir) => external(manifests.get(dir)).every((name) => installed(name, dir)) && installed(manifests.get(dir).name));
const skipped = workspaces.filter((dir) => !ready.includes(dir));
if (skipped.length > 0) console.log(`build: skipping ${skipped.join(', ')} (dependencies not installed)`);
// tsc -b builds each target's references first; a ready package's workspace dependencies are ready too.
const targets = skipped.length === 0 ? ['tsconfig.build.json'] : ready;
const run = spawnSync(process.execPath, [tsc, '-b', ...targets], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);

// cs-cli is started once per command, and Node 20 spends a few milliseconds on every ES module it
// loads: its ~30 modules become one file, beside its entry so that its relative URLs still hold
// (bench/startup.ts measures the start).
if (ready.includes('packages/csd')) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'packages/csd/dist/cs-cli/main.js')],
    outfile: join(root, 'packages/csd/dist/cs-cli/bundle.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
}
