// The manifest.json of one server's bundle: identity from its package.json and server.json, the tools it
// lists (asked from the built server over stdio, so the manifest cannot drift from the code), what the
// person installing it chooses (servers.mjs), and how a client starts it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The tools `bin` lists, each with the first sentence of its description. */
export async function listTools(repo, bin) {
  // The MCP SDK the servers themselves use (through @mcp-workbench/core).
  const require = createRequire(path.join(repo, 'packages', 'core', 'package.json'));
  const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bundle-tools-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, '--root', scratch, '--log-level', 'error'],
    cwd: scratch,
    env: {
      ...process.env,
      PRISMIND_HOME: path.join(scratch, 'store'),
      MD_REVIEW_HOME: path.join(scratch, 'md'),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-workbench-bundler', version: '0.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return tools.map((tool) => ({
      name: tool.name,
      description: firstSentence(tool.description ?? tool.title ?? ''),
    }));
  } finally {
    await client.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

function firstSentence(text) {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return end > 0 ? flat.slice(0, end + 1) : flat;
}

/** The Node.js lines the addons cover, as a semver range ("^20.19.0 || ^22.12.0"). */
export function nodeRange(targets) {
  return targets.map((target) => (target.startsWith('20.') ? '^20.19.0' : `^${target}`)).join(' || ');
}

/**
 * @param {object} options
 * @param {string} options.packageDir packages/<server>
 * @param {object} options.server its entry in servers.mjs
 * @param {string} options.entry the file the client runs, relative to the bundle
 * @param {{ name: string, description: string }[]} options.tools
 * @param {string[]} options.platforms
 * @param {string} options.node the semver range of Node.js the bundle runs under
 */
export async function buildManifest({ packageDir, server, entry, tools, platforms, node }) {
  const pkg = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
  const registry = JSON.parse(await readFile(path.join(packageDir, 'server.json'), 'utf8'));
  const repository = registry.repository.url;
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: server.displayName,
    version: pkg.version,
    description: pkg.description,
    long_description:
      `${pkg.description}\n\nThe same server as \`npx -y ${pkg.name}\` (npm), packed with its dependencies. ` +
      `Registry name: ${registry.name}. Documentation: ${registry.websiteUrl}`,
    author: { name: 'mcp-workbench contributors', url: repository },
    repository: { type: 'git', url: `${repository}.git` },
    homepage: registry.websiteUrl,
    documentation: registry.websiteUrl,
    support: `${repository}/issues`,
    license: pkg.license,
    keywords: pkg.keywords ?? [],
    server: {
      type: 'node',
      entry_point: entry,
      mcp_config: {
        command: 'node',
        args: [`\${__dirname}/${entry}`, ...server.args],
        env: server.env,
      },
    },
    tools,
    tools_generated: false,
    prompts_generated: false,
    compatibility: { platforms, runtimes: { node } },
    user_config: server.userConfig,
  };
}
