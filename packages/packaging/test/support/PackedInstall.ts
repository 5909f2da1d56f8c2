/**
 * Every workspace package packed as it would be published and installed with npm into an empty
 * project outside the workspace, next to each package's README examples and the Examples test that
 * runs them. Nothing from the workspace is reachable there: only the tarballs and the registry.
 */
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)

export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url))

/**
 * The oldest Node the packages declare (`engines`: undici and @effect/platform-node need 22.19),
 * brought as an npm package the way the bench brings Node 20.
 */
export const NODE_22_VERSION = "22.19.0"

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly devDependencies?: Readonly<Record<string, string>>
}

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** A workspace package: its folder (`packages/cache`) and manifest. */
export interface WorkspacePackage {
  readonly dir: string
  readonly manifest: Manifest
}

/** The published packages, and `@switchyard/fake-providers`, which the Examples tests start fakes with. */
export const packagesUnderTest = (): ReadonlyArray<WorkspacePackage> =>
  ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(repoRoot, parent)).map((name) => join(parent, name))
      .filter((dir) => existsSync(join(repoRoot, dir, "package.json")))
      .map((dir) => ({ dir, manifest: manifestOf(join(repoRoot, dir)) }))
      .filter(({ manifest }) => manifest.private !== true || manifest.name === "@switchyard/fake-providers")
  )

/** Runs a command; a failure carries everything it printed. */
export const command = async (
  file: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }
): Promise<string> => {
  try {
    const { stderr, stdout } = await run(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 })
    return stdout + stderr
  } catch (error) {
    const output = error instanceof Error && "stdout" in error && "stderr" in error
      ? `${String(error.stdout)}${String(error.stderr)}`
      : ""
    throw new Error(`${file} ${args.join(" ")} failed in ${options.cwd}:\n${output}`, { cause: error })
  }
}

/** The environment of a child outside this test run: the given Node first on PATH, no Vitest state. */
export const childEnv = (nodeBinary: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("VITEST") && name !== "NODE_OPTIONS" && name !== "TEST") env[name] = value
  }
  env["PATH"] = [dirname(nodeBinary), process.env["PATH"] ?? ""].join(delimiter)
  env["NO_COLOR"] = "1"
  delete env["FORCE_COLOR"]
  return env
}

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  command("npm", ["--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline", ...args], {
    cwd,
    env: childEnv(process.execPath)
  })

/** Node 22 from the npm registry, once per machine (a few seconds); later runs reuse the cache. */
export const node22 = async (): Promise<string> => {
  const cache = join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "switchyard-packaging")
  const dir = join(cache, `node-${NODE_22_VERSION}`)
  const nodePackage = `node-${process.platform}-${process.arch}`
  const binary = join(dir, "node_modules", nodePackage, "bin", "node")
  if (existsSync(binary)) return binary
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), "{\"private\":true}\n")
  await npm(["install", "--ignore-scripts", `${nodePackage}@${NODE_22_VERSION}`], dir)
  return binary
}

/** Packs each package with pnpm (its `prepack` builds a clean `dist`); the tarballs' paths. */
export const pack = async (packages: ReadonlyArray<WorkspacePackage>): Promise<ReadonlyArray<string>> => {
  const destination = mkdtempSync(join(tmpdir(), "switchyard-packs-"))
  const filters = packages.flatMap(({ dir }) => ["--filter", `./${dir}`])
  const pnpm = join(repoRoot, "node_modules/pnpm/bin/pnpm.cjs")
  // one package at a time: each prepack deletes its own dist and builds with \`tsc -b\`, which also
  // builds the projects it references; packed side by side, one would delete what another reads
  const serial = "--workspace-concurrency=1"
  await command(process.execPath, [pnpm, "-r", serial, ...filters, "pack", "--pack-destination", destination], {
    cwd: repoRoot,
    env: childEnv(process.execPath)
  })
  return readdirSync(destination).filter((name) => name.endsWith(".tgz")).map((name) => join(destination, name))
}

/** The version the repo itself uses of a dependency, so the consumer installs the same. */
const repoVersion = (name: string): string => {
  const root = manifestOf(repoRoot).devDependencies?.[name]
  const core = manifestOf(join(repoRoot, "packages/core")).devDependencies?.[name]
  const server = manifestOf(join(repoRoot, "apps/server")).devDependencies?.[name]
  const version = root ?? core ?? server
  if (version === undefined) throw new Error(`no workspace manifest pins ${name}`)
  return `${name}@${version}`
}

/**
 * A new project in a temporary folder with the tarballs installed by npm, the peers at the repo's
 * versions, and Vitest to run the copied Examples tests.
 */
export const install = async (tarballs: ReadonlyArray<string>): Promise<string> => {
  const project = mkdtempSync(join(tmpdir(), "switchyard-consumer-"))
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  const peers = ["effect", "@effect/platform-node", "vitest", "@effect/vitest", "@types/node"].map(repoVersion)
  await npm(["install", ...tarballs, ...peers], project)
  return project
}

/**
 * Copies each package's README, examples and Examples test (with its `test/support`) into
 * `<project>/<folder>`. `@switchyard/storage/testing` is not published: its source is copied
 * too, reading `Database` from the installed package instead of its sibling file.
 */
export const copyExamples = (packages: ReadonlyArray<WorkspacePackage>, project: string): ReadonlyArray<string> => {
  const tests: Array<string> = []
  for (const { dir, manifest } of packages) {
    const from = join(repoRoot, dir)
    if (manifest.private === true || !existsSync(join(from, "test/Examples.test.ts"))) continue
    const to = join(project, dir.replace("/", "-"))
    cpSync(join(from, "README.md"), join(to, "README.md"))
    cpSync(join(from, "examples"), join(to, "examples"), { recursive: true })
    cpSync(join(from, "test/Examples.test.ts"), join(to, "test/Examples.test.ts"))
    if (existsSync(join(from, "test/support"))) {
      cpSync(join(from, "test/support"), join(to, "test/support"), { recursive: true })
    }
    tests.push(join(to, "test/Examples.test.ts"))
  }
  const testing = join(repoRoot, "packages/storage/src/testing")
  // the helper imports the package's own modules from its index, which a consumer imports by name
  const sibling = "import { Database, SqliteWriter } from \"../index.ts\""
  const source = readFileSync(join(testing, "TestDatabase.ts"), "utf8")
  if (!source.includes(sibling)) throw new Error(`TestDatabase.ts no longer has: ${sibling}`)
  mkdirSync(join(project, "storage-testing"), { recursive: true })
  writeFileSync(
    join(project, "storage-testing/TestDatabase.ts"),
    source.replace(sibling, "import { Database, SqliteWriter } from \"@switchyard/storage\"")
  )
  // the other helpers import only effect and node: copied as they are
  for (const file of readdirSync(testing)) {
    if (file !== "TestDatabase.ts") cpSync(join(testing, file), join(project, "storage-testing", file))
  }
  return tests
}

const compilerOptions = {
  target: "es2024",
  // effect's declarations name Web Crypto and worker types (CryptoKey, Transferable) from the DOM lib
  lib: ["es2024", "dom"],
  types: ["node"],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  allowImportingTsExtensions: true,
  noEmit: true,
  // the point: the published declarations are checked as a consumer's compiler sees them
  skipLibCheck: false,
  paths: { "@switchyard/storage/testing": ["./storage-testing/index.ts"] }
}

/** Writes `tsconfig.<name>.json` over the copied tests (and what they import); its path. */
export const writeTsconfig = (
  project: string,
  name: "nodenext" | "bundler",
  tests: ReadonlyArray<string>
): string => {
  const resolution = name === "nodenext"
    ? { module: "nodenext", moduleResolution: "nodenext" }
    : { module: "preserve", moduleResolution: "bundler" }
  const file = join(project, `tsconfig.${name}.json`)
  writeFileSync(file, JSON.stringify({ compilerOptions: { ...compilerOptions, ...resolution }, files: tests }))
  return file
}

/** The Vitest config of the consumer: the copied Examples tests, the storage test helper aliased. */
export const writeVitestConfig = (project: string): void =>
  writeFileSync(
    join(project, "vitest.config.mjs"),
    `export default {
  resolve: { alias: { "@switchyard/storage/testing": ${JSON.stringify(join(project, "storage-testing/index.ts"))} } },
  test: { include: ["*/test/Examples.test.ts"], testTimeout: 60000, hookTimeout: 60000 }
}
`
  )
