// drizzle-kit configuration: `npx drizzle-kit generate` writes a new migration for a change in
// src/store/schema.ts into drizzle/; then `node scripts/embed-migrations.mjs` refreshes
// src/store/migrations.ts, the copy the runner applies (it must also work inside the bundle).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/schema.ts',
  out: './drizzle',
});
