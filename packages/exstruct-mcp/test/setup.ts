// Runs before every test file: at its end, the workbooks its workspaces wrote are loaded with openpyxl
// in one python process (see deferOpenpyxlCheck).
import { afterAll } from 'vitest';
import { flushOpenpyxlChecks } from './independent-reader.js';

afterAll(flushOpenpyxlChecks);
