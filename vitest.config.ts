import { defineConfig } from "vitest/config"

// Workspace packages export their TypeScript sources under this condition and their built `dist`
// by default (what npm installs): tests run the sources, so they need no build first. A list of
// conditions replaces Vitest's own, so its defaults for Node follow (without "module", which
// points some dependencies at files Node cannot load).
const conditions = ["@switchyard/source", "node", "development|production"]

// The tests that build and run `dist` rather than the sources: packing (each `prepack` deletes a
// package's `dist` and rebuilds it) and the start commands (which build and run the server's).
// They run in a group of their own, one file at a time, so none finds a `dist` half rebuilt.
const built = ["packages/packaging/test/**/*.test.ts", "apps/server/test/StartCommand.test.ts"]

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
          exclude: built,
          // Vitest's default on two cores is one file at a time, and most files wait on the servers
          // they start: two at once keep both cores busy (the suite took 14 minutes one at a time)
          maxWorkers: 2
        }
      },
      { extends: true, test: { name: "built", include: built, maxWorkers: 1, sequence: { groupOrder: 1 } } }
    ]
  }
})
