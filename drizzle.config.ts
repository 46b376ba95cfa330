// drizzle-kit configuration. `npm run db:generate` = `drizzle-kit generate` (a new migration in
// drizzle/ for a change to the tables or views of src/store/schema.ts) + `node
// scripts/embed-migrations.mjs` (refreshes src/store/migrations.ts, the copy the runner applies:
// it must also work inside the bundle and the Bun binary).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/schema.ts',
  out: './drizzle',
});
