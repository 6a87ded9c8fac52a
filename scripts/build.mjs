#!/usr/bin/env node
// Builds the packages to JavaScript (tsc -b over their project references): all of them after a
// plain `npm ci`, and after a partial install (`npm ci -w packages/cs-miner`) those whose
// dependencies are installed, so that installing one program builds that program instead of
// failing on the others; then bundles csd and cs-cli. `npm ci` runs this as the root `prepare`
// script; `npm run build` too.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
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

// Node 20 spends a few milliseconds on every ES module it loads, and csd's code is over 300 of
// them: csd and cs-cli run from one esbuild bundle (dist/bundle/), split so that each program and
// each worker-thread entry loads only the chunks it uses. The npm dependencies stay as installed
// (npm's workspaces hoist them to the root node_modules, where the bundle finds them). Every
// chunk sits in that one folder, two levels below the package like dist/<program>/main.js, so
// startWorker's entries beside the calling code and the `../../package.json` URLs still resolve.
// bench/startup.ts measures the start.
if (ready.includes('packages/csd')) {
  const { build } = await import('esbuild');
  const dist = join(root, 'packages/csd/dist');
  const npmDependencies = [...new Set([...manifests.values()].flatMap(external))];
  // Chunk names carry a content hash: the last build's would stay beside this one's.
  rmSync(join(dist, 'bundle'), { recursive: true, force: true });
  await build({
    entryPoints: [
      { in: join(dist, 'csd/main.js'), out: 'csd' },
      { in: join(dist, 'cs-cli/main.js'), out: 'cs-cli' },
      { in: join(dist, 'chain/coins-writer-main.js'), out: 'coins-writer-main' },
      { in: join(dist, 'chain/script-worker-main.js'), out: 'script-worker-main' },
    ],
    outdir: join(dist, 'bundle'),
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: npmDependencies.flatMap((name) => [name, `${name}/*`]),
    logLevel: 'warning',
  });
}
