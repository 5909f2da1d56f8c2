import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
