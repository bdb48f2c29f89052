#!/usr/bin/env node
// The `exstruct` command-line extractor (issue 3) lives here.
process.stderr.write('exstruct: not implemented yet\n');
process.exit(1);
