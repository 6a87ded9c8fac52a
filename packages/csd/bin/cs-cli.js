#!/usr/bin/env node
// Runs the compiled program from its bundle (scripts/build.mjs), so that it starts fast.
import '../dist/bundle/cs-cli.js';
