import envPaths from 'env-paths';

/**
 * Where sessions are kept: `$MD_REVIEW_HOME`, else the OS's per-user data folder
 * (~/.local/share/md-review, ~/Library/Application Support/md-review, %LOCALAPPDATA%\md-review\Data).
 */
export function defaultHome(env: NodeJS.ProcessEnv): string {
  const named = env.MD_REVIEW_HOME?.trim();
  return named ? named : envPaths('md-review', { suffix: '' }).data;
}
