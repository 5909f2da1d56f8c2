/**
 * The README's configuration table and `.env.example` name exactly the variables the server's
 * configuration reads: its own (`ServerConfig`) and the pipeline's (`Pipeline.OptionsConfig` of
 * the `@switchyard/gateway` preset).
 */
import { assert, describe, it } from "@effect/vitest"
import { Pipeline } from "@switchyard/gateway"
import { ServerConfig } from "@switchyard/server"
import { type Config, ConfigProvider, Effect } from "effect"
import { readFileSync } from "node:fs"

const repoRoot = new URL("../../../", import.meta.url)
const readme = readFileSync(new URL("README.md", repoRoot), "utf8")
const envExample = readFileSync(new URL(".env.example", repoRoot), "utf8")

/** Every variable `config` asks for, found by reading it from an environment that has none. */
const variablesRead = (config: Config.Config<unknown>) =>
  Effect.gen(function*() {
    const read = new Set<string>()
    yield* config.parse(ConfigProvider.make((path) => {
      read.add(path.join("_"))
      return Effect.succeed(undefined)
    }))
    return read
  })

/** The names in the first column of the table under "## Configuration". */
const readmeVariables = (): Set<string> => {
  const section = readme.split("\n## Configuration\n")[1]?.split("\n## ")[0] ?? ""
  const names = section.split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] ?? ""))
  return new Set(names)
}

/** The names set in `.env.example`, commented out or not. */
const envExampleVariables = (): Set<string> =>
  new Set([...envExample.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] ?? ""))

const sorted = (names: Iterable<string>) => [...names].sort()

describe("configuration", () => {
  it.effect("the README's table names every variable the server reads, and no other", () =>
    Effect.gen(function*() {
      const read = yield* variablesRead(ServerConfig.ServerConfig)
      assert.deepStrictEqual(sorted(readmeVariables()), sorted(read))
    }))

  it.effect(".env.example sets every variable the server reads, and no other", () =>
    Effect.gen(function*() {
      const read = yield* variablesRead(ServerConfig.ServerConfig)
      assert.deepStrictEqual(sorted(envExampleVariables()), sorted(read))
    }))

  it.effect("the server reads every variable of the gateway preset", () =>
    Effect.gen(function*() {
      const server = yield* variablesRead(ServerConfig.ServerConfig)
      const preset = yield* variablesRead(Pipeline.OptionsConfig)
      assert.isAbove(preset.size, 10)
      assert.deepStrictEqual(sorted(preset).filter((name) => !server.has(name)), [])
    }))
})
