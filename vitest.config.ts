import { defineConfig } from "vitest/config"

// Workspace packages export their TypeScript sources under this condition and their built `dist`
// by default (what npm installs): tests run the sources, so they need no build first. A list of
// conditions replaces Vitest's own, so its defaults for Node follow (without "module", which
// points some dependencies at files Node cannot load).
const conditions = ["@switchyard/source", "node", "development|production"]

// Packing rebuilds every package's `dist` from scratch (`prepack`), so it runs alone, after every
// other file: a test that runs the built server must never find its `dist` half deleted.
const packing = "packages/packaging/test/**/*.test.ts"

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "switchyard",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
          exclude: [packing]
        }
      },
      { extends: true, test: { name: "packed", include: [packing], sequence: { groupOrder: 1 } } }
    ]
  }
})
