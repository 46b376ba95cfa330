// Writes src/mcp/handlers/schemas.json: the inputSchema and outputSchema of every MCP tool, derived
// from the tools' zod schemas (src/mcp/tools/*.schema.ts) exactly as the registry derives them. The
// daemon serves and checks arguments against this file, so it never loads zod or builds a schema;
// test/unit/mcp-schemas.test.ts fails while the file differs from what this writes.
// Usage: node --import tsx scripts/mcp-schemas.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { advertisedSchemas } from '../src/mcp/registry.ts';
import { ALL_TOOLS } from '../src/mcp/tools/index.ts';

export const SCHEMAS_FILE = join(import.meta.dirname, '..', 'src', 'mcp', 'handlers', 'schemas.json');

/** The file's text: one entry a tool, in catalogue order. */
export function schemasText(): string {
  const out: Record<string, unknown> = {};
  for (const tool of ALL_TOOLS) out[tool.name] = advertisedSchemas(tool);
  return `${JSON.stringify(out, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMAS_FILE, schemasText());
  process.stdout.write(`wrote ${SCHEMAS_FILE}\n`);
}
