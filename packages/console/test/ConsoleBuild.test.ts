/**
 * assets/ is the build of app/: the gateway serves it as it is, with no build step at start. This
 * builds app/ again into a temporary folder and fails when the kept assets differ, so a change to
 * the sources cannot ship without its build (`pnpm --filter @switchyard/console build:app`).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "vite"
import { describe, expect, it } from "vitest"

const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
const ASSETS = join(PACKAGE, "assets")

describe("the console's kept build", () => {
  it("is what vite builds from app/ now", async () => {
    const outDir = await mkdtemp(join(tmpdir(), "switchyard-console-build-"))
    try {
      await build({ configFile: join(PACKAGE, "vite.config.ts"), build: { outDir, emptyOutDir: true } })
      const built = (await readdir(outDir)).toSorted()
      expect(built).toEqual(["console.css", "console.js"])
      expect((await readdir(ASSETS)).toSorted()).toEqual(built)
      for (const name of built) {
        const fresh = await readFile(join(outDir, name), "utf8")
        const kept = await readFile(join(ASSETS, name), "utf8")
        expect(kept === fresh, `assets/${name} is stale: run pnpm --filter @switchyard/console build:app`).toBe(true)
      }
    } finally {
      await rm(outDir, { recursive: true, force: true })
    }
  }, 60_000)

  it("stays small: under 40 KB of script and 8 KB of style", async () => {
    expect((await readFile(join(ASSETS, "console.js"))).byteLength).toBeLessThan(40_000)
    expect((await readFile(join(ASSETS, "console.css"))).byteLength).toBeLessThan(8_000)
  })

  it("loads nothing from another host", async () => {
    for (const name of ["console.js", "console.css"]) {
      const text = await readFile(join(ASSETS, name), "utf8")
      // XML namespace names (SVG, MathML) are identifiers the browser never fetches
      const urls = (text.match(/https?:\/\/[^\s"'`)]+/g) ?? []).filter((url) => !url.startsWith("http://www.w3.org/"))
      expect(urls, name).toEqual([])
    }
  })
})
