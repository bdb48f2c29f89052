/** `name@range` of every optional peer of these packages (package.json contents), for `npm install`. */
export function optionalPeerSpecs(
  manifests: Iterable<{
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  }>,
): string[];
