import { ToolError } from '@mcp-workbench/core/engine';

/**
 * The packages of the backends a default install leaves out: the local store needs neither, so
 * `npx -y prismind-mcp` does not download the Google clients or the PostgreSQL driver. They are
 * optional peer dependencies: a team installs them beside prismind-mcp.
 */
export const BACKEND_PACKAGES = {
  postgres: ['pg'],
  google: ['@googleapis/sheets', '@googleapis/drive', '@googleapis/docs', 'google-auth-library'],
} as const;

export type OptionalBackend = keyof typeof BACKEND_PACKAGES;

/** The npx arguments and install commands that bring a backend's packages along. */
export function installAdvice(backend: OptionalBackend): string {
  const packages = BACKEND_PACKAGES[backend];
  return (
    `With npx: npx -y ${packages.map((p) => `-p ${p}`).join(' ')} -p prismind-mcp prismind-mcp ` +
    `(as the client entry's "args": ["-y", ${[...packages, 'prismind-mcp'].flatMap((p) => ['"-p"', `"${p}"`]).join(', ')}, "prismind-mcp"]). ` +
    `Installed globally: npm install -g prismind-mcp ${packages.join(' ')}.`
  );
}

/** The package of BACKEND_PACKAGES[backend] that an ERR_MODULE_NOT_FOUND names, if any. */
function missingPackage(error: unknown, packages: readonly string[]): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string') return undefined;
  return packages.find((name) => message.includes(`'${name}'`));
}

/**
 * Loads a backend's modules; when one of its packages is not installed, says which backend needs
 * what and how to install it (BACKEND_UNAVAILABLE) instead of a module-resolution stack.
 */
export async function loadBackend<T>(backend: OptionalBackend, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const packages = BACKEND_PACKAGES[backend];
    const missing = missingPackage(error, packages);
    if (!missing) throw error;
    throw new ToolError(
      'BACKEND_UNAVAILABLE',
      `storage.backend = "${backend}" needs the package ${missing}, which a default install of prismind-mcp leaves out (the local store needs none of ${packages.join(', ')}).`,
      { hint: installAdvice(backend), details: { backend, missing, packages: [...packages] }, cause: error },
    );
  }
}
