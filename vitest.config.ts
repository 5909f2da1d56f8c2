import { defineConfig } from "vitest/config"

// Workspace packages export their TypeScript sources under this condition and their built `dist`
// by default (what npm installs): tests run the sources, so they need no build first. A list of
// conditions replaces Vitest's own, so its defaults for Node follow (without "module", which
// points some dependencies at files Node cannot load).
const conditions = ["@switchyard/source", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
