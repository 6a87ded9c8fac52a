import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ggufFileIdentity } from './file-hash.js';

test('ggufFileIdentity streams a file larger than one read into the SHA-256 and size of its bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-hash-'));
  try {
    const bytes = randomBytes((9 << 20) + 17);
    const path = join(dir, 'model.gguf');
    writeFileSync(path, bytes);
    assert.deepEqual(await ggufFileIdentity(path), { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
    writeFileSync(join(dir, 'empty'), '');
    assert.deepEqual(await ggufFileIdentity(join(dir, 'empty')), { sha256: createHash('sha256').digest('hex'), size: 0 });
    await assert.rejects(ggufFileIdentity(join(dir, 'absent')), { code: 'ENOENT' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
