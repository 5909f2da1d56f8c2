/**
 * Portkey's open-source gateway as a point of comparison. It is installed outside the repo, with its
 * runtime dependencies at the exact versions of its v1.15.2 lockfile, and run on the
 * Node major its Dockerfile uses (20): newer dependency versions or Node 24 change its behaviour.
 */
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import type { ChildProcessGroup } from "./ChildProcessGroup.ts"
import { freePort, waitForStatus } from "./LocalHttp.ts"
import type { RunningServer } from "./ServerProcesses.ts"

const portkeyVersion = "1.15.2"
const nodeVersion = "20.20.2"
const run = promisify(execFile)

const cacheDir = join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "switchyard-bench")
const appDir = join(cacheDir, `portkey-${portkeyVersion}`)
const nodeDir = join(cacheDir, `node-${nodeVersion}`)
const nodePackage = `node-${process.platform}-${process.arch}`
const nodeBinary = join(nodeDir, "node_modules", nodePackage, "bin", "node")
const installedMarker = join(appDir, ".switchyard-installed")
/**
 * Portkey's own lockfile is not shipped on npm, and none of Portkey's files belong in this repo:
 * the pins (its v1.15.2 package.json dependencies and the production entries of its
 * package-lock.json) are kept on the machine, outside the repo.
 */
const pinsDir = process.env["SWITCHYARD_PORTKEY_PINS"] ?? join(cacheDir, "portkey-pins")

/** Installs Portkey once (a few seconds from the npm registry); later runs reuse the cache. */
export const installPortkey = async (): Promise<void> => {
  if (existsSync(installedMarker) && existsSync(nodeBinary)) return
  if (!existsSync(join(pinsDir, "package-lock.json"))) {
    throw new Error(
      `Portkey's pinned dependencies are not on this machine: put the package.json and package-lock.json of ` +
        `Portkey's gateway at tag v${portkeyVersion} (production entries) in ${pinsDir}, or set SWITCHYARD_PORTKEY_PINS`
    )
  }
  rmSync(appDir, { recursive: true, force: true })
  mkdirSync(appDir, { recursive: true })
  const npm = (args: ReadonlyArray<string>, cwd: string) =>
    run("npm", ["--no-audit", "--no-fund", "--loglevel=error", ...args], { cwd, maxBuffer: 16 * 1024 * 1024 })
  await npm(["pack", `@portkey-ai/gateway@${portkeyVersion}`, "--pack-destination", appDir], appDir)
  const tarball = readdirSync(appDir).find((name) => name.endsWith(".tgz"))
  if (tarball === undefined) throw new Error("npm pack produced no tarball")
  await run("tar", ["xzf", tarball, "--strip-components=1", "package/build"], { cwd: appDir })
  cpSync(join(pinsDir, "package.json"), join(appDir, "package.json"))
  cpSync(join(pinsDir, "package-lock.json"), join(appDir, "package-lock.json"))
  await npm(["ci", "--omit=dev", "--ignore-scripts"], appDir)
  mkdirSync(nodeDir, { recursive: true })
  writeFileSync(join(nodeDir, "package.json"), "{\"private\":true}\n")
  await npm(["install", "--ignore-scripts", `${nodePackage}@${nodeVersion}`], nodeDir)
  writeFileSync(installedMarker, `${new Date().toISOString()}\n`)
}

/** Portkey listens on every interface; this preload makes a listen without a host bind 127.0.0.1. */
const loopbackOnly = `data:text/javascript,${
  encodeURIComponent(`import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && args[1] === undefined) args[1] = "127.0.0.1";
  else if (typeof args[0] === "number" && typeof args[1] === "function") args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};`)
}`

export const startPortkey = async (group: ChildProcessGroup, node = nodeBinary): Promise<RunningServer> => {
  const port = await freePort()
  const child = group.spawn("portkey", node, [
    "--import",
    loopbackOnly,
    join(appDir, "build/start-server.js"),
    `--port=${port}`,
    "--headless"
  ], { NODE_ENV: "production" })
  const origin = `http://127.0.0.1:${port}`
  await waitForStatus(`${origin}/`, 200, child, 30_000)
  return { origin, pid: child.pid }
}
