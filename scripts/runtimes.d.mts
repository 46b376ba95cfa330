export function ensureRuntimes(): void;
export function runtimeBin(name: 'bun' | 'deno'): string;
