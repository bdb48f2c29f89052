// What each server's MCP Bundle asks the person installing it, and how the client starts it.
//
// `user_config` values reach the server as the manifest's `mcp_config` says: a `multiple` directory
// choice standing alone in `args` expands to one argument per directory (our servers take positional
// root directories), strings and numbers are substituted in place. An optional value needs a default
// (an empty string is fine in `env`): Claude Desktop leaves `${user_config.x}` unreplaced when a value has
// neither, and the servers ignore empty environment variables.
//
// `perPlatform`: the bundle carries per-platform binaries, so there is one bundle per operating system
// (the manifest can name platforms, not CPU architectures, so each holds every architecture we ship).

const directories = (what) => ({
  type: 'directory',
  title: 'Allowed directories',
  description: `The folders the server may ${what}. Nothing outside them is touched (symbolic links out of them are refused).`,
  multiple: true,
  required: true,
});

export const SERVERS = {
  'exstruct-mcp': {
    displayName: 'ExStruct — Excel workbooks for agents',
    perPlatform: false,
    // No on-conflict choice: the server's default (replace only its own earlier output, else write
    // name_1) is the safe one, and an agent that means to overwrite says so per call (on_conflict).
    userConfig: { allowed_directories: directories('read workbooks from and write results to') },
    args: ['${user_config.allowed_directories}'],
    env: {},
  },
  'code-reader-mcp': {
    displayName: 'Code Reader — large codebases, token-efficiently',
    // ripgrep's binary comes from @vscode/ripgrep's per-platform npm packages.
    perPlatform: true,
    userConfig: { allowed_directories: directories('read code in') },
    args: ['${user_config.allowed_directories}'],
    env: {},
  },
  'md-review-mcp': {
    displayName: 'Markdown Review — a person reviews, the agent gets JSON',
    perPlatform: false,
    userConfig: {
      allowed_directories: directories('open Markdown for review in'),
      wait_seconds: {
        type: 'number',
        title: 'Wait for the reviewer (seconds)',
        description:
          'How long one review request waits for the person before it answers "pending" (the agent then asks again). Claude Desktop gives a tool call about 60 seconds; 0 waits until the review is finished.',
        default: 50,
        min: 0,
        max: 3600,
      },
    },
    args: ['--wait-seconds', '${user_config.wait_seconds}', '${user_config.allowed_directories}'],
    env: {},
  },
  'prismind-mcp': {
    displayName: 'Prismind — project knowledge across sessions',
    // better-sqlite3's native addon is per platform, architecture and Node.js ABI.
    perPlatform: true,
    nativeAddon: 'better-sqlite3',
    userConfig: {
      store_folder: {
        type: 'directory',
        title: 'Store folder',
        description:
          'Where the local store keeps its Markdown documents and search index. Empty: the per-user data folder (~/.local/share/prismind, ~/Library/Application Support/prismind, %LOCALAPPDATA%\\prismind\\Data).',
        default: '',
      },
      backend: {
        type: 'string',
        title: 'Backend',
        description:
          'local (the store folder, offline), postgres (a team database: set the database URL) or google (Sheets, Drive and Docs: run `npx -y prismind-mcp auth login` once).',
        default: 'local',
      },
      database_url: {
        type: 'string',
        title: 'PostgreSQL URL (postgres backend)',
        description:
          'postgres://user:password@host:5432/database?schema=prismind — only for the postgres backend.',
        sensitive: true,
        default: '',
      },
    },
    args: [],
    env: {
      PRISMIND_HOME: '${user_config.store_folder}',
      PRISMIND_BACKEND: '${user_config.backend}',
      PRISMIND_DATABASE_URL: '${user_config.database_url}',
    },
  },
};

/** The architectures a per-platform bundle carries, by operating system. */
export const ARCHES = { darwin: ['x64', 'arm64'], linux: ['x64', 'arm64'], win32: ['x64', 'arm64'] };

/**
 * Node.js lines whose native addons a release bundle carries (one per ABI): the LTS lines in this
 * repository's engines range (>= 20.19) that better-sqlite3 12 publishes prebuilt addons for.
 */
export const RELEASE_NODE_TARGETS = ['20.19.0', '22.12.0', '24.0.0', '26.0.0'];
