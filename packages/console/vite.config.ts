/**
 * Builds the console (app/) into assets/: one script and one style sheet with fixed names, which
 * the gateway serves as they are. No HTML entry: the gateway writes the page itself, so Vite adds
 * no inline script (the page's Content-Security-Policy allows none).
 */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

export const ASSETS = fileURLToPath(new URL("assets", import.meta.url))

export default defineConfig({
  root: fileURLToPath(new URL("app", import.meta.url)),
  logLevel: "warn",
  // the same build wherever it runs: Vitest sets NODE_ENV=test, which would pick dev builds
  mode: "production",
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  oxc: { jsx: { runtime: "automatic", importSource: "preact", development: false } },
  build: {
    outDir: ASSETS,
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    modulePreload: false,
    rolldownOptions: {
      input: fileURLToPath(new URL("app/main.tsx", import.meta.url)),
      output: { entryFileNames: "console.js", assetFileNames: "console[extname]" }
    }
  }
})
