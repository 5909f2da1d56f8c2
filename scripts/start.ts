/**
 * The README's start command: `node_modules/node/bin/node scripts/start.ts`. It builds the server
 * (`tsc -b`, incremental: nothing to do when the build is current) and then becomes it:
 * `process.execve` replaces this process with `node apps/server/dist/main.js`, keeping its id.
 * So the process the command started is the server itself: SIGTERM or SIGINT sent to it stops the
 * server gracefully, and no wrapper stays behind. (`npx pnpm start` puts npm, pnpm and three
 * shells in between, ~200 MB, and the shells do not pass SIGTERM on: the server would be left
 * running.) Arguments after the script are passed to the server.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const node = process.execPath

/**
 * An 8 MB young generation and a 1.5 x heap growth factor keep the server's peak RSS at
 * 170-225 MB instead of ~400 MB, at no cost in throughput (README, "Performance").
 */
const V8_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=50"]

/** Runs `tsc -b` on the server; a SIGTERM or SIGINT meanwhile stops the build, and nothing starts. */
const build = (): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    const tsc = spawn(node, [`${root}node_modules/typescript/bin/tsc`, "-b", "apps/server/tsconfig.src.json"], {
      cwd: root,
      stdio: "inherit"
    })
    const stop = (signal: NodeJS.Signals) => tsc.kill(signal)
    process.on("SIGINT", stop).on("SIGTERM", stop)
    tsc.once("exit", (code, signal) => {
      process.off("SIGINT", stop).off("SIGTERM", stop)
      resolve({ code, signal })
    })
  })

const built = await build()
if (built.signal !== null) process.kill(process.pid, built.signal)
else if (built.code !== 0) process.exit(built.code ?? 1)
else if (process.execve === undefined) {
  // Windows has no execve: there, run the production command of the README directly
  console.error(`start.ts needs process.execve; run: node ${V8_FLAGS.join(" ")} apps/server/dist/main.js`)
  process.exit(1)
} else {
  process.execve(node, [node, ...V8_FLAGS, `${root}apps/server/dist/main.js`, ...process.argv.slice(2)])
}
