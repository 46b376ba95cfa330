/** The newest GLIBC_x.y symbol version in `readelf -V` output: the package's libc floor. */
export function glibcFloor(readelfOutput: string): string | null;
