import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll } from "vitest"
import {
  childEnv,
  command,
  copyExamples,
  install,
  node22,
  pack,
  packagesUnderTest,
  repoRoot,
  writeTsconfig,
  writeVitestConfig
} from "./support/PackedInstall.ts"

interface Published {
  readonly name: string
  readonly private?: boolean
  readonly engines?: { readonly node?: string }
  readonly exports?: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly repository?: unknown
  readonly homepage?: string
  readonly bugs?: unknown
  readonly license?: string
}

const packages = packagesUnderTest()
const published = packages.filter(({ manifest }) => manifest.private !== true)
let project = ""
let tests: ReadonlyArray<string> = []
let nodeOf22 = ""

// packing builds every package; npm fills the project from its cache or the registry
beforeAll(async () => {
  const [tarballs, node] = await Promise.all([pack(packages), node22()])
  nodeOf22 = node
  project = await install(tarballs)
  tests = copyExamples(packages, project)
  writeVitestConfig(project)
}, 300_000)

const installed = (name: string): { readonly dir: string; readonly manifest: Published } => {
  const dir = join(project, "node_modules", name)
  return { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }
}

/** Runs the copied Examples tests with the consumer's own Vitest on `node`. */
const runExamples = (node: string) =>
  command(node, [join(project, "node_modules/vitest/vitest.mjs"), "run"], { cwd: project, env: childEnv(node) })

const tsc = join(repoRoot, "node_modules/typescript/bin/tsc")

describe("packed packages installed with npm outside the workspace", () => {
  it("each manifest is complete: engines, peer ranges, no workspace protocol, license, links", () => {
    for (const { manifest } of published) {
      const { dir, manifest: packed } = installed(manifest.name)
      assert.match(packed.engines?.node ?? "", /^>=22\.\d+\.\d+$/, packed.name)
      assert.isTrue(existsSync(join(dir, "LICENSE")), `${packed.name} ships a LICENSE`)
      assert.isTrue(existsSync(join(dir, "README.md")), `${packed.name} ships a README`)
      assert.isDefined(packed.repository, packed.name)
      assert.isDefined(packed.bugs, packed.name)
      assert.isString(packed.homepage, packed.name)
      for (const peer of ["effect", "@effect/platform-node"]) {
        assert.isUndefined(packed.dependencies?.[peer], `${packed.name}: ${peer} is a peer, not a dependency`)
      }
      assert.match(packed.peerDependencies?.["effect"] ?? "", /^\^4\./, packed.name)
      const specs = Object.values({ ...packed.dependencies, ...packed.peerDependencies })
      assert.isFalse(specs.some((spec) => spec.startsWith("workspace:")), `${packed.name}: ${specs.join(", ")}`)
    }
  })

  it("every export resolves to a built file in the tarball, never to TypeScript source", () => {
    for (const { manifest } of published) {
      const { dir, manifest: packed } = installed(manifest.name)
      const entries = Object.entries(packed.exports ?? {}).filter(([, targets]) => targets["default"] !== undefined)
      assert.isNotEmpty(entries, packed.name)
      for (const [entry, targets] of entries) {
        for (const condition of ["types", "default"]) {
          const target = targets[condition] ?? ""
          assert.match(target, /^\.\/dist\/.*\.(js|d\.ts)$/, `${packed.name} ${entry} ${condition}`)
          assert.isTrue(existsSync(join(dir, target)), `${packed.name} ${entry} ${condition}: ${target}`)
        }
      }
    }
  })

  it("in memory, the cache, circuit breaker and gateway load no Redis client", async () => {
    const script = `
      import { registerHooks } from "node:module"
      const redis = []
      registerHooks({ resolve: (specifier, context, next) => {
        if (/^(redis|@redis\\/|@switchyard\\/redis)/.test(specifier)) redis.push(specifier)
        return next(specifier, context)
      } })
      await import("@switchyard/cache")
      await import("@switchyard/circuit-breaker")
      await import("@switchyard/gateway")
      console.log(JSON.stringify(redis))
    `
    const output = await command(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      env: childEnv(process.execPath)
    })
    assert.deepStrictEqual(JSON.parse(output), [])
    for (const name of ["@switchyard/cache", "@switchyard/circuit-breaker", "@switchyard/gateway"]) {
      assert.isUndefined(installed(name).manifest.dependencies?.["@switchyard/redis"], name)
    }
  })

  it("@switchyard/storage/testing is not reachable from the published package", async () => {
    const script =
      "await import(\"@switchyard/storage/testing\").then(() => console.log(\"found\"), (e) => console.log(e.code))"
    const output = await command(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      env: childEnv(process.execPath)
    })
    assert.strictEqual(output.trim(), "ERR_PACKAGE_PATH_NOT_EXPORTED")
  })

  for (const resolution of ["nodenext", "bundler"] as const) {
    it(
      `the examples and their tests typecheck as a consumer's code under ${resolution}, skipLibCheck off`,
      async () => {
        const config = writeTsconfig(project, resolution, tests)
        await command(process.execPath, [tsc, "-p", config], { cwd: project, env: childEnv(process.execPath) })
      },
      120_000
    )
  }

  it("each README's examples run on Node 24 against fake providers", async () => {
    const summary = /Test Files\s+(\d+) passed \((\d+)\)/.exec(await runExamples(process.execPath))
    assert.deepStrictEqual(summary?.slice(1), [String(tests.length), String(tests.length)])
  }, 180_000)

  it("each README's examples run on Node 22 against fake providers", async () => {
    const summary = /Test Files\s+(\d+) passed \((\d+)\)/.exec(await runExamples(nodeOf22))
    assert.deepStrictEqual(summary?.slice(1), [String(tests.length), String(tests.length)])
  }, 180_000)

  // the release procedure's last step (.changeset/README.md), short of the registry itself
  it("publishes every published package in a dry run", async () => {
    const pnpm = join(repoRoot, "node_modules/pnpm/bin/pnpm.cjs")
    // the prepack builds ran when the packages were packed above (the same script): run again here,
    // one package after another, they took a minute of CI's fifteen on a slow machine
    const output = await command(process.execPath, [
      pnpm,
      "publish",
      "-r",
      "--dry-run",
      "--no-git-checks",
      "--ignore-scripts"
    ], {
      cwd: repoRoot,
      env: childEnv(process.execPath)
    })
    for (const { manifest } of published) assert.include(output, `+ ${manifest.name}@`)
  }, 180_000)
})
