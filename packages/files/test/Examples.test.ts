import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { filesLive, uploaded } from "../examples/UploadFile.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("UploadFile: the bytes land in the directory and read back as they were sent", () => {
    const directory = join(mkdtempSync(join(tmpdir(), "switchyard-files-example-")), "files")
    return Effect.gen(function*() {
      const { file, text } = yield* uploaded
      assert.deepStrictEqual([file.filename, file.purpose, file.bytes], ["requests.jsonl", "batch", text.length])
      assert.deepStrictEqual(JSON.parse(text), {
        custom_id: "q1",
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "gpt-4o-mini", messages: [] }
      })
      assert.deepStrictEqual(readdirSync(directory), [file.id])
    }).pipe(Effect.provide(filesLive(":memory:", directory)))
  })
})
