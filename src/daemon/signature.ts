// Change detection for reloads (spec 01 §1.8): a signature of every file a load read.
import { statSync } from 'node:fs';

/** `(path, mtime, size)` per file; a missing file has its own marker so deletion counts as a change. */
export function filesSignature(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const st = statSync(f, { bigint: true });
        return `${f}\t${st.mtimeNs}\t${st.size}`;
      } catch {
        return `${f}\tmissing`;
      }
    })
    .join('\n');
}
