#!/usr/bin/env node
// `exstruct INPUT [-o OUT] [-f json|yaml|toon] [-m light|standard|verbose] [--alpha-col] [--pretty]
// [--sheets-dir DIR]` — the same engine as the MCP server, for shells and scripts.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { OUTPUT_FORMATS, toToolError, writeFileAtomic, type OutputFormat } from '@mcp-workbench/core/engine';
import { extractWorkbook } from './extract/extract-workbook.js';
import { EXTRACTION_MODES, MODE_SUMMARY, type ExtractionMode } from './extract/modes.js';
import { sheetFileStem } from './output/extract-files.js';
import { renderDocument } from './output/render.js';
import { PACKAGE_VERSION } from './version.js';

const HELP = `Usage: exstruct INPUT [options]

Extract an Excel workbook (.xlsx/.xlsm) to JSON, YAML or TOON — no Excel needed.

Options:
  -o, --output <file>       Write to this file (default: standard output)
  -f, --format <format>     json (default) | yaml | toon
  -m, --mode <mode>         light | standard (default) | verbose
      --alpha-col           Column letters ("A") as keys instead of 0-based numbers ("0")
      --pretty              Indented JSON
      --sheets-dir <dir>    Also write one file per sheet into <dir>
  -h, --help                Show this help
  -v, --version             Show the version

Modes:
${EXTRACTION_MODES.map((m) => `  ${m.padEnd(9)} ${MODE_SUMMARY[m]}`).join('\n')}
`;

function fail(message: string, code = 1): never {
  process.stderr.write(`exstruct: ${message}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        output: { type: 'string', short: 'o' },
        format: { type: 'string', short: 'f', default: 'json' },
        mode: { type: 'string', short: 'm', default: 'standard' },
        'alpha-col': { type: 'boolean', default: false },
        pretty: { type: 'boolean', default: false },
        'sheets-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.version) {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return;
  }
  if (positionals.length !== 1) fail(`expected exactly one INPUT workbook.\n\n${HELP}`, 2);
  const format = values.format as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format))
    fail(`unknown format "${values.format}" (use json, yaml or toon).`, 2);
  const mode = values.mode as ExtractionMode;
  if (!EXTRACTION_MODES.includes(mode))
    fail(`unknown mode "${values.mode}" (use light, standard or verbose).`, 2);

  const input = path.resolve(positionals[0]!);
  const extraction = await extractWorkbook(input, { mode, alphaCol: values['alpha-col'] });
  for (const warning of extraction.warnings) process.stderr.write(`exstruct: warning: ${warning}\n`);
  const bytes = extraction.serializeToBuffer(format, { pretty: values.pretty });
  if (values.output) await writeFileAtomic(path.resolve(values.output), bytes);
  else
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(bytes, (e) => (e ? reject(e) : resolve())),
    );

  if (values['sheets-dir']) {
    const dir = path.resolve(values['sheets-dir']);
    await mkdir(dir, { recursive: true });
    for (const payload of extraction.sheetPayloads()) {
      const text = renderDocument(payload, format, { pretty: values.pretty });
      await writeFileAtomic(path.join(dir, `${sheetFileStem(payload.sheet_name)}.${format}`), text);
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const problem = toToolError(error);
  fail(`${problem.code}: ${problem.message}${problem.hint ? `\n  ${problem.hint}` : ''}`);
});
