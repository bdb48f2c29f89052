import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { pathsOf, type ToolDeps } from './deps.js';
import { formatOf, outputFormatSchema } from './shared.js';

export function setProjectPathTool(deps: ToolDeps) {
  return defineTool({
    name: 'set_project_path',
    title: 'Set project path',
    description:
      'Choose the project directory, inside the allowed roots: relative paths in calls and answers start there. ' +
      'Never widens access.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      project_path: z.string(),
      output_format: outputFormatSchema,
    },
    output: {
      project_path: z
        .string()
        .describe(
          'The project directory as paths are shown: relative to its root ("." for the root itself).',
        ),
      roots: z
        .array(z.string())
        .describe('The allowed roots as shown paths name them: ["."] with one root, else their names.'),
    },
    textFormat: formatOf,
    async run(args, ctx) {
      const paths = pathsOf(ctx, deps);
      const real = await paths.resolve(args.project_path, { mustExist: true, kind: 'directory' });
      deps.project.setProjectDir(real);
      // Shown like every other path (root-relative, prefixed by the root's name with several roots):
      // an absolute path costs tokens and tells the model nothing a relative one does not.
      const policy = ctx.paths;
      return {
        project_path: policy.displayPath(real),
        roots: policy.roots.map((root) => policy.displayPath(root)),
      };
    },
  });
}
