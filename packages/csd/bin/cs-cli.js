#!/usr/bin/env node
// Runs the compiled program, bundled into one file (scripts/build.mjs) so that it starts fast.
import '../dist/cs-cli/bundle.js';
