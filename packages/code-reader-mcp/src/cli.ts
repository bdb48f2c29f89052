#!/usr/bin/env node
// The `code-reader` command-line interface (issue 5) lives here.
process.stderr.write('code-reader: not implemented yet\n');
process.exit(1);
