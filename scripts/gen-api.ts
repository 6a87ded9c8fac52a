// Writes the API descriptions generated from csd's method table:
//   docs/api/rpc-methods.json               every RPC method, its params, result and help
//   packages/client/src/rpc-methods.gen.ts  the TypeScript types of @cs/client's typed calls
// Run it after changing a method: `npm run gen:api`. test/api-descriptions.test.ts fails while the
// checked-in files differ from what this writes.
import { writeFileSync } from 'node:fs';
import { generatedApiFiles } from './api-files.ts';

for (const [path, text] of generatedApiFiles()) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
