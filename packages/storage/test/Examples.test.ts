import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { ConfigProvider, Effect, Layer } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseLive, workspaces } from "../examples/DatabaseFromEnv.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("DatabaseFromEnv: without DATABASE_URL, a migrated SQLite file in the data dir", () =>
    Effect.gen(function*() {
      const dataDir = join(mkdtempSync(join(tmpdir(), "switchyard-storage-")), "data")
      const noEnv = ConfigProvider.layer(ConfigProvider.fromUnknown({}))
      const rows = yield* workspaces.pipe(Effect.provide(DatabaseLive(dataDir).pipe(Layer.provide(noEnv))))
      assert.deepStrictEqual(rows.map((row) => row.id), ["00000000-0000-4000-8000-000000000000"])
      assert.isTrue(existsSync(join(dataDir, "switchyard.db")))
    }))
})
