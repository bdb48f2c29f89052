// A server's optional peer dependencies are backends npx leaves out (prismind's pg and Google clients:
// the default install is the local store). A bundle offers every backend in its install dialog, so the
// install a bundle is made from gets them too, at the ranges the server's package.json names.

/** `name@range` of every optional peer of these packages (package.json contents), for `npm install`. */
export function optionalPeerSpecs(manifests) {
  const specs = new Set();
  for (const manifest of manifests) {
    for (const [name, meta] of Object.entries(manifest.peerDependenciesMeta ?? {})) {
      const range = manifest.peerDependencies?.[name];
      if (meta?.optional && range) specs.add(`${name}@${range}`);
    }
  }
  return [...specs].sort();
}
