#!/usr/bin/env -S node --max-semi-space-size=32
// The connecting thread allocates all the time while each block's objects live for a block or two:
// twice V8's default young generation halves its collections during a sync or -reindex (see
// docs/protocol.md "Sync at scale"). Node takes it only on its command line; programs that spawn
// csd read it from this line (@cs/runtime/launch).
// Runs the compiled program from its bundle (npm run build, or npm ci, writes dist/; see
// scripts/build.mjs), so that it starts fast.
import '../dist/bundle/csd.js';
