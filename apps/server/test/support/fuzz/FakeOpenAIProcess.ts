/**
 * The FakeOpenAI in a process of its own: answering thousands of requests in the test's process
 * would delay the test's own timers and blame the gateway for the fake's time.
 */
import { type ChildProcess, spawn } from "node:child_process"

const FAKE_CLI = new URL("../../../../../packages/fake-providers/src/cli.ts", import.meta.url).pathname

export interface FakeOpenAIProcess {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string
  readonly child: ChildProcess
}

/** Starts the fake on a free port of 127.0.0.1 and resolves once it listens. */
export const start = (): Promise<FakeOpenAIProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FAKE_CLI, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] })
    let output = ""
    child.once("exit", (code) => reject(new Error(`the fake exited with ${code}: ${output}`)))
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString()
      const port = /listening http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]
      if (port !== undefined) resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, child })
    })
  })
