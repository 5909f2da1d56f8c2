import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

/** A child process the bench started, with the tail of its output for error messages. */
export interface Child {
  readonly name: string
  readonly process: ChildProcess
  readonly pid: number
  readonly outputTail: () => string
  /** Resolves with the first output line matching `pattern`; rejects if the child exits or time runs out. */
  readonly waitForLine: (pattern: RegExp, timeoutMs: number) => Promise<RegExpMatchArray>
}

const tailLength = 4_000

/** Every child the bench starts, so that all of them are stopped at the end, on error and on Ctrl-C. */
export class ChildProcessGroup {
  readonly #children: Array<Child> = []
  #stopping = false

  /**
   * With `stdoutFile`, the child's stdout goes to that file rather than through the bench: a
   * server that writes a log line per request would otherwise make the load generator read
   * thousands of lines a second on the same CPUs it measures with.
   */
  spawn(
    name: string,
    command: string,
    args: ReadonlyArray<string>,
    env: NodeJS.ProcessEnv = {},
    stdoutFile?: string
  ): Child {
    const stdout = stdoutFile === undefined ? "pipe" : openSync(stdoutFile, "a")
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", stdout, "pipe"] })
    if (typeof stdout === "number") closeSync(stdout)
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`)
    let tail = ""
    let partialLine = ""
    const listeners = new Set<(line: string) => void>()
    const onData = (data: Buffer) => {
      const text = data.toString("utf8")
      tail = (tail + text).slice(-tailLength)
      const lines = (partialLine + text).split("\n")
      partialLine = (lines.pop() ?? "").slice(-tailLength)
      for (const line of lines) for (const listener of listeners) listener(line)
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code, signal) => {
      if (!this.#stopping) {
        const more = stdoutFile === undefined ? "" : `\n(its stdout is in ${stdoutFile})`
        console.error(`! ${name} exited unexpectedly (${code ?? signal}):\n${tail}${more}`)
      }
    })
    const started: Child = {
      name,
      process: child,
      pid: child.pid,
      outputTail: () => tail,
      waitForLine: (pattern, timeoutMs) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => finish(new Error(`${name} printed no ${pattern} in ${timeoutMs} ms`)),
            timeoutMs
          )
          const onExit = (code: number | null) => finish(new Error(`${name} exited (${code}) before ${pattern}`))
          const onLine = (line: string) => {
            const match = line.match(pattern)
            if (match !== null) finish(match)
          }
          const finish = (outcome: RegExpMatchArray | Error) => {
            clearTimeout(timer)
            listeners.delete(onLine)
            child.off("exit", onExit)
            if (outcome instanceof Error) reject(new Error(`${outcome.message}\n${tail}`))
            else resolve(outcome)
          }
          listeners.add(onLine)
          child.once("exit", onExit)
        })
    }
    this.#children.push(started)
    return started
  }

  /** SIGTERM to every child still running, SIGKILL to those still running after `graceMs`. */
  async stopAll(graceMs = 3_000): Promise<void> {
    this.#stopping = true
    const running = this.#children.filter(isRunning)
    for (const child of running) child.process.kill("SIGTERM")
    const deadline = Date.now() + graceMs
    while (running.some(isRunning) && Date.now() < deadline) await sleep(50)
    this.killAllNow()
  }

  /** Synchronous last resort, for the `exit` event. */
  killAllNow(): void {
    this.#stopping = true
    for (const child of this.#children.filter(isRunning)) child.process.kill("SIGKILL")
  }

  /** Stops every child when the bench is interrupted or exits, whatever the reason. */
  stopOnExit(): void {
    process.once("exit", () => this.killAllNow())
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.once(signal, () => {
        console.error(`\n${signal}: stopping children`)
        this.stopAll(1_000).finally(() => process.exit(130))
      })
    }
  }
}

const isRunning = (child: Child): boolean => child.process.exitCode === null && child.process.signalCode === null
