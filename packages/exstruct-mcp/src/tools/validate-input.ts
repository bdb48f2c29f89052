import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { EXTRACTION_MODES } from '../extract/modes.js';

export const validateInputTool = defineTool({
  name: 'exstruct_validate_input',
  title: 'Check a workbook before extracting',
  description:
    'Check that exstruct_extract can read a workbook in that mode, writing nothing (format, password, ' +
    'damaged zip, zip bomb, every sheet). Returns is_readable, sheet_names, the warnings extract would give ' +
    'and errors with what to do. Takes about as long as extracting.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    xlsx_path: z.string().min(1),
    mode: z.enum(EXTRACTION_MODES).default('standard'),
  },
  output: {
    is_readable: z.boolean(),
    format: z.string().optional().describe('xlsx, xlsm, … when readable.'),
    sheet_names: z.array(z.string()).optional(),
    warnings: z.array(z.string()),
    errors: z.array(z.object({ code: z.string(), message: z.string(), hint: z.string().optional() })),
  },
  async run(args, { paths }) {
    const file = await paths.resolve(args.xlsx_path, { mustExist: true, kind: 'file' });
    // The reading engine loads on the server's thread with the first check, not with the server.
    const { validateInput } = await import('../extract/validate-input.js');
    return validateInput(file, { mode: args.mode, files: paths });
  },
});
