// The repository's boundaries, read from the sources: no package reaches into another's src/, no
// import cycle in any package's sources, and csd's folders import downward only along the layer
// table in docs/development.md.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');

interface Import {
  readonly specifier: string;
  readonly line: number;
}

/**
 * Static imports and re-exports (type-only ones too), dynamic imports, and worker entry points:
 * `new URL('./x.js', import.meta.url)` and `startWorker(import.meta.url, 'x')` (@cs/runtime/worker).
 */
const IMPORT_PATTERNS: readonly [RegExp, (name: string) => string][] = [
  [/(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g, (name) => name],
  [/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, (name) => name],
  [/new\s+URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g, (name) => name],
  [/startWorker\(\s*import\.meta\.url\s*,\s*['"]([^'"]+)['"]/g, (name) => `./${name}.ts`],
];

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const [pattern, specifier] of IMPORT_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index + m[0].indexOf(m[1]);
      found.push({ specifier: specifier(m[1]), line: text.slice(0, at).split('\n').length });
    }
  }
  return found;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name, 'package.json'), { throwIfNoEntry: false }));
const isTest = (file: string) => /\.test\.ts$/.test(file) || file.split(sep).includes('test') || file.split(sep).includes('fixtures');

/** A relative import's file: `.js` written for a `.ts` source resolves to the source, as tsc and tsx do. */
function resolveRelative(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  if (statSync(target, { throwIfNoEntry: false })?.isFile()) return target;
  return target.replace(/\.js$/, '.ts');
}

const show = (file: string, line: number) => `${relative(root, file)}:${line}`;

test("no package imports another package's src/ by path", () => {
  const offences: string[] = [];
  for (const pkg of packages) {
    for (const file of walk(join(packagesDir, pkg))) {
      for (const { specifier, line } of importsOf(file)) {
        if (/^@cs\/[^/]+\/src(\/|$)/.test(specifier)) offences.push(`${show(file, line)} imports ${specifier}`);
        if (!specifier.startsWith('.')) continue;
        const target = resolveRelative(file, specifier);
        if (!target.startsWith(packagesDir + sep)) continue;
        const parts = relative(packagesDir, target).split(sep);
        if (parts[0] !== pkg && parts[1] === 'src') offences.push(`${show(file, line)} imports ${relative(root, target)}`);
      }
    }
  }
  assert.deepEqual(offences, [], 'import the package by name, through what its exports map declares');
});

test('package imports name only what the package exports', () => {
  const exported = new Map<string, Set<string>>();
  for (const pkg of packages) {
    const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
    exported.set(manifest.name, new Set(Object.keys(manifest.exports ?? {})));
  }
  const offences: string[] = [];
  for (const file of [...walk(packagesDir), ...walk(join(root, 'test')), ...walk(join(root, 'bench')), ...walk(join(root, 'scripts'))]) {
    for (const { specifier, line } of importsOf(file)) {
      const m = /^(@cs\/[^/]+)(\/.*)?$/.exec(specifier);
      if (!m) continue;
      const paths = exported.get(m[1]);
      if (paths === undefined) offences.push(`${show(file, line)}: no workspace package ${m[1]}`);
      else if (!paths.has(`.${m[2] ?? ''}`)) offences.push(`${show(file, line)}: ${m[1]} does not export .${m[2] ?? ''}`);
    }
  }
  assert.deepEqual(offences, []);
});

/** Tarjan's strongly connected components over the relative imports of one package's sources. */
function cycles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(
    files.map((f) => [
      f,
      importsOf(f)
        .filter((i) => i.specifier.startsWith('.'))
        .map((i) => resolveRelative(f, i.specifier)),
    ]),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!known.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component);
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

test("no import cycle in any package's sources", () => {
  const found: string[] = [];
  for (const pkg of packages) {
    const sources = walk(join(packagesDir, pkg)).filter((f) => !isTest(f));
    for (const cycle of cycles(sources)) found.push(cycle.map((f) => relative(root, f)).join(' <-> '));
  }
  assert.deepEqual(found, []);
});

/** docs/development.md's layer table: folder -> layer number. */
function csdLayers(): Map<string, number> {
  const doc = readFileSync(join(root, 'docs/development.md'), 'utf8');
  const table = /<!-- layers:begin -->([\s\S]*?)<!-- layers:end -->/.exec(doc);
  assert.ok(table, 'docs/development.md has the layer table');
  const layers = new Map<string, number>();
  for (const row of table[1].split('\n')) {
    const cells = row.split('|').map((c) => c.trim());
    if (!/^\d+$/.test(cells[1] ?? '')) continue;
    for (const folder of cells[2].matchAll(/`([^`]+)`/g)) layers.set(folder[1], Number(cells[1]));
  }
  return layers;
}

test("csd's folders import downward only, along docs/development.md's layers", () => {
  const src = join(packagesDir, 'csd', 'src');
  const layers = csdLayers();
  const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
  assert.deepEqual(
    folders.filter((f) => !layers.has(f)),
    [],
    'every folder of packages/csd/src has a row in the layer table',
  );
  const offences: string[] = [];
  for (const file of walk(src).filter((f) => !isTest(f))) {
    const from = relative(src, file).split(sep)[0];
    for (const { specifier, line } of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      const to = relative(src, target).split(sep)[0];
      if (to === from || !layers.has(to)) continue;
      if (layers.get(to)! > layers.get(from)!)
        offences.push(`${show(file, line)}: ${from} (layer ${layers.get(from)}) imports ${relative(src, target)} (layer ${layers.get(to)})`);
    }
  }
  assert.deepEqual(offences, []);
});
