/** A page's resource: a line while it loads, the gateway's message when it fails, else the page. */
import type { ComponentChildren } from "preact"
import type { Resource } from "./useResource.ts"

export function Loaded<A>(
  { resource, children }: { readonly resource: Resource<A>; readonly children: (value: A) => ComponentChildren }
) {
  if (resource.status === "loading") return <p class="muted">Loading…</p>
  if (resource.status === "failed") return <p class="error" role="alert">{resource.message}</p>
  return <>{children(resource.value)}</>
}

/** A row of cells per item, or a line saying there are none. */
export function Table<A>(
  { items, columns, empty, rowClass }: {
    readonly items: ReadonlyArray<A>
    readonly columns: ReadonlyArray<readonly [string, (item: A) => ComponentChildren]>
    readonly empty: string
    readonly rowClass?: (item: A) => string | undefined
  }
) {
  return items.length === 0 ? <p class="muted">{empty}</p> : (
    <table>
      <thead>
        <tr>{columns.map(([name]) => <th key={name}>{name}</th>)}</tr>
      </thead>
      <tbody>
        {items.map((item, index) => (
          <tr key={index} class={rowClass?.(item)}>
            {columns.map(([name, cell]) => <td key={name}>{cell(item)}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
