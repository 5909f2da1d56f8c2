/** The console's pages live in the URL's hash (`#/requests/<id>`), so the gateway serves one page. */
import { useEffect, useState } from "preact/hooks"

export interface Route {
  readonly page: string
  /** What follows the page: a request's id. */
  readonly id: string | undefined
}

const parse = (hash: string): Route => {
  const [page = "", id] = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent)
  return { page: page === "" ? "requests" : page, id: id === "" ? undefined : id }
}

export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parse(location.hash))
  useEffect(() => {
    const changed = () => setRoute(parse(location.hash))
    addEventListener("hashchange", changed)
    return () => removeEventListener("hashchange", changed)
  }, [])
  return route
}

export const href = (page: string, id?: string): string =>
  id === undefined ? `#/${page}` : `#/${page}/${encodeURIComponent(id)}`
