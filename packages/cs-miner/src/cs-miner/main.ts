// Placeholder entry point: the layout is final, the program arrives with its own issue.
process.stderr.write('cs-miner: not available in this release yet (see README.md, "Packages").\n');
process.exitCode = 1;
