export function readLayers(path: string): string[][];
export function checkLayers(
  docPath: string,
  root: string,
): { problems: string[]; modules: number; layers: number };
