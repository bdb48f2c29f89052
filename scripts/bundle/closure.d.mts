/**
 * The directories of `name` and its run-time dependencies inside the npm install at `root` (dir → name);
 * `withInstallOnly` adds what only an install script needs (everything npm installs);
 * `withOptionalPeers: false` leaves installed optional peers out (what `npx` alone installs).
 */
export function dependencyClosure(
  root: string,
  name: string,
  options?: { withInstallOnly?: boolean; withOptionalPeers?: boolean },
): Promise<Map<string, string>>;
/** Puts the packages (directories under `root`) at the same relative places under `dest` (hard links where possible). */
export function copyPackages(root: string, dirs: Iterable<string>, dest: string): Promise<void>;
