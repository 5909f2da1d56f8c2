/**
 * `npx pnpm test` (scripts/test.ts) says which services the suites need when one is missing,
 * before and after Vitest's own report, and passes Vitest's exit code on.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { freePort } from "./support/GatewayProcess.ts"

const repoRoot = new URL("../../../", import.meta.url).pathname

/** The test command with a filter that matches no file, so that Vitest starts and ends at once. */
const runTestCommand = (env: Record<string, string>) =>
  new Promise<{ readonly code: number | null; readonly output: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      ["scripts/test.ts", "switchyard-matches-no-test-file", "--passWithNoTests"],
      { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    child.stdout.on("data", (data: Buffer) => (output += data.toString()))
    child.stderr.on("data", (data: Buffer) => (output += data.toString()))
    child.once("exit", (code) => resolve({ code, output }))
  })

describe("the test command", () => {
  it("names a Postgres that does not answer, and the test files that need it, before and after the run", async () => {
    // a port nothing listens on, and not the machine's own server, so it is not started either
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/test`
    const { code, output } = await runTestCommand({ SWITCHYARD_TEST_DATABASE_URL: url })
    expect(code).toBe(0)
    const notice = `Postgres at ${url} does not answer`
    expect(output.split(notice)).toHaveLength(3)
    expect(output).toContain("  packages/storage/test/Database.test.ts\n")
    expect(output).toContain("  apps/server/test/Restart.test.ts\n")
  }, 60_000)

  it("says nothing of services that answer (in CI, both always do)", async () => {
    const { code, output } = await runTestCommand({})
    expect(code).toBe(0)
    expect(output).not.toContain("does not answer")
  }, 60_000)
})
