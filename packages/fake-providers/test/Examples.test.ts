import { ReadmeExamples } from "@switchyard/fake-providers"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { outage } from "../examples/RedisOutage.ts"
import { rateLimitedOnce } from "../examples/ScriptedOpenAI.ts"
// registers its own test, which checks this package's README
import "../examples/CheckReadme.ts"

/** A package directory holding `readme` and the given example files. */
const packageWith = (readme: string, examples: Readonly<Record<string, string>>): string => {
  const dir = mkdtempSync(join(tmpdir(), "readme-examples-"))
  writeFileSync(join(dir, "README.md"), readme)
  mkdirSync(join(dir, "examples"))
  for (const [name, text] of Object.entries(examples)) writeFileSync(join(dir, "examples", name), text)
  return dir
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" })
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

describe("README examples", () => {
  it("ScriptedOpenAI: the queued 429 answers first, then the default reply", async () => {
    const { statuses, retryAfter, answer, recorded } = await rateLimitedOnce()
    expect(statuses).toEqual([429, 200])
    expect(retryAfter).toBe("2")
    expect(answer).toMatchObject({ object: "chat.completion", choices: [{ message: { content: "echo: Hi" } }] })
    expect(recorded).toMatchObject({ method: "POST", path: "/v1/chat/completions", body: { model: "gpt-4o-mini" } })
  })

  it("RedisOutage: a server of the test's own on 127.0.0.1, killed at the end", async () => {
    const { url, port, nobody } = await outage()
    expect(url).toBe(`redis://127.0.0.1:${port}`)
    expect(await refused(port)).toBe(true)
    expect(await refused(nobody)).toBe(true)
  })
})

describe("ReadmeExamples.check", () => {
  const block = (code: string) => "```ts\n" + code + "\n```\n"

  it("passes when every ts block is an example file's content and every file is shown", () => {
    const dir = packageWith(`# p\n\n${block("const a = 1")}\n\`\`\`sh\nnpm test\n\`\`\`\n`, {
      "A.ts": "const a = 1\n"
    })
    expect(() => ReadmeExamples.check(dir)).not.toThrow()
  })

  it("compares a block with the part of a file before // README end, or between the two markers", () => {
    const dir = packageWith(block("const a = 1") + block("const b = 2"), {
      "A.ts": "const a = 1\n// README end\nexport { a }\n",
      "B.ts": "import x from \"y\"\n// README start\nconst b = 2\n// README end\nexport { b, x }\n"
    })
    expect(() => ReadmeExamples.check(dir)).not.toThrow()
  })

  it("fails on a block that differs from its file, naming the README line and the closest file", () => {
    const dir = packageWith(`# p\n\n${block("const a = 1\nconst c = 3")}`, { "A.ts": "const a = 1\nconst c = 4\n" })
    expect(() => ReadmeExamples.check(dir)).toThrow(
      /README\.md:3: this ts block is no example file's content; closest: examples\/A\.ts/
    )
  })

  it("fails on a block without any example file, and on an example the README does not show", () => {
    expect(() => ReadmeExamples.check(packageWith(block("const a = 1"), {}))).toThrow(/README\.md:1/)
    expect(() => ReadmeExamples.check(packageWith("# p\n", { "A.ts": "const a = 1\n" }))).toThrow(
      /examples\/A\.ts: not shown in README\.md/
    )
  })
})
