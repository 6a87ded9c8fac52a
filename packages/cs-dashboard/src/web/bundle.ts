/**
 * The front-end (packages/cs-dashboard/web) bundled by esbuild in memory when the server starts:
 * no build step to forget, and everything the browser loads comes from the dashboard itself (no
 * CDN, no fonts, no analytics).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

// The browser's sources, from src/ whether this runs from src/ or dist/: esbuild bundles them as they are.
const WEB = fileURLToPath(new URL('../../src/web/ui/', import.meta.url));

/** `/` → index.html, `/app.js`, `/app.css` (the pages' styles and uPlot's). */
export async function bundleFrontEnd(): Promise<Map<string, Asset>> {
  const out = await build({
    entryPoints: { app: `${WEB}app.ts` },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    outdir: '/',
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  assets.set('/', { type: 'text/html; charset=utf-8', body: readFileSync(`${WEB}index.html`) });
  for (const f of out.outputFiles) {
    const type = f.path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    assets.set(f.path, { type, body: Buffer.from(f.contents) });
  }
  return assets;
}
