/**
 * The depth rule of a config tree (extensions.md, "Limits of input"): at most
 * {@link MAX_STRATEGY_DEPTH} strategy nodes on one path from the root to a leaf. It walks the
 * raw object with its own stack, before any member is decoded, so no input can make it recurse.
 */
import { Schema } from "effect"

export const MAX_STRATEGY_DEPTH = 10

interface Visit {
  readonly node: unknown
  /** Strategy nodes on the path down to this node, itself included. */
  readonly depth: number
  readonly parent: Visit | undefined
  readonly index: number
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isStrategyNode = (node: { readonly [key: string]: unknown }): boolean =>
  node.strategy !== undefined && node.targets !== undefined

// the path is built only for the node that breaks the rule
const pathOf = (visit: Visit): Array<PropertyKey> => {
  const path: Array<PropertyKey> = []
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) {
    path.unshift("targets", at.index)
  }
  return path
}

export const strategyDepthRule = Schema.makeFilter((config: { readonly [key: string]: unknown }) => {
  const stack: Array<Visit> = [{ node: config, depth: 0, parent: undefined, index: 0 }]
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const node = visit.node
    if (!isRecord(node)) continue
    const depth = visit.depth + (isStrategyNode(node) ? 1 : 0)
    if (depth > MAX_STRATEGY_DEPTH) {
      return {
        path: pathOf(visit),
        issue: `is the ${depth}th strategy node (an object with strategy and targets) on its path from the root; ` +
          `at most ${MAX_STRATEGY_DEPTH} are allowed`
      }
    }
    const targets = node.targets
    if (!Array.isArray(targets)) continue
    const here: Visit = { ...visit, depth }
    targets.forEach((target: unknown, index) => stack.push({ node: target, depth, parent: here, index }))
  }
  return undefined
})
