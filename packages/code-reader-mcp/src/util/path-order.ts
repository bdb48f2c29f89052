/**
 * The order answers list paths in: name by name along the path, each compared by UTF-16 code units
 * (`a/b` before `a.txt`, as a tree is walked), so a folder's files stay together. Equal inputs give equal
 * answers whatever order ripgrep's parallel walk found them in.
 */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A separator ends a name: it sorts before every character a name can hold.
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}
