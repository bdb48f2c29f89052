/** Adds the other architectures' optional platform packages next to the installed ones; returns name@version of each. */
export function addOtherArchitectures(
  stage: string,
  packages: Map<string, string>,
  platform: string,
  arches: string[],
): Promise<string[]>;
