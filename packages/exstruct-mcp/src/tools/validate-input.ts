import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import { EXTRACTION_MODES } from '../extract/modes.js';
import { validateInput } from '../extract/validate-input.js';

export const validateInputTool = defineTool({
  name: 'exstruct_validate_input',
  title: 'Check a workbook before extracting',
  description:
    'Check that a workbook can be extracted, writing nothing: it reads the workbook exactly as ' +
    'exstruct_extract does in the same mode (the format — legacy .xls, .xlsb and .csv are refused with the ' +
    'fix —, password protection, a damaged or truncated zip, zip bombs, every sheet), so is_readable=true ' +
    'means extract will succeed. Returns is_readable, the sheet names, the warnings extract would give, and ' +
    'errors (each with a code and what to do). It costs about as much time as the extraction itself. Step 1 ' +
    'of the recommended flow: exstruct_validate_input → exstruct_extract (mode "standard") → ' +
    'exstruct_read_json_chunk.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    xlsx_path: z.string().min(1).describe('The workbook to check.'),
    mode: z
      .enum(EXTRACTION_MODES)
      .default('standard')
      .describe('The extraction mode to check for: light | standard (default) | verbose.'),
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
    return validateInput(file, { mode: args.mode, files: paths });
  },
});
