#!/usr/bin/env node
// Runs the compiled program (npm run build, or npm ci, writes dist/).
import '../dist/cs-dashboard/main.js';
