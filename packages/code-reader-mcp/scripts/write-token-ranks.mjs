// Build step: writes dist/o200k_base.json, the o200k rank table of the installed gpt-tokenizer as JSON.
// The tokenizer's thread parses it (JSON.parse) instead of importing the package's 2.4 MB JavaScript
// module of string literals, whose compile was most of the first count's wait (src/tokens/count.ts).
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { TOKEN_RANKS_FILE } from '../dist/tokens/count.js';

const file = fileURLToPath(new URL(`../dist/${TOKEN_RANKS_FILE}`, import.meta.url));
writeFileSync(`${file}.tmp`, JSON.stringify(ranks));
renameSync(`${file}.tmp`, file);
