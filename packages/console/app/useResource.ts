/** Loads a resource for a page, again when its inputs change, and on an interval when asked (live pages). */
import { useEffect, useState } from "preact/hooks"
import { explain } from "./api.ts"

export type Resource<A> =
  | { readonly status: "loading" }
  | { readonly status: "failed"; readonly message: string }
  | { readonly status: "loaded"; readonly value: A; readonly at: number }

export const useResource = <A>(
  load: () => Promise<A>,
  inputs: ReadonlyArray<unknown>,
  options: { readonly everyMs?: number } = {}
): Resource<A> => {
  const [resource, setResource] = useState<Resource<A>>({ status: "loading" })
  useEffect(() => {
    let live = true
    const run = () =>
      load().then(
        (value) => live && setResource({ status: "loaded", value, at: Date.now() }),
        (error: unknown) => live && setResource({ status: "failed", message: explain(error) })
      )
    void run()
    const timer = options.everyMs === undefined ? undefined : setInterval(run, options.everyMs)
    return () => {
      live = false
      if (timer !== undefined) clearInterval(timer)
    }
  }, inputs)
  return resource
}
