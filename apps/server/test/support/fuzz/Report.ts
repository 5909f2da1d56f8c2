/**
 * What the fuzz prints: for a category that failed, its failures counted by kind, the ones shown
 * as generated and shrunk with the gateway's log lines, and the bystanders; after the suite, a
 * table of every category's answers and the slowest answers seen.
 */
import { type CategoryResult, RESTARTS_PER_CATEGORY } from "./CategoryRun.ts"
import { viaFake, type World } from "./FuzzRequest.ts"
import { words } from "./Lists.ts"
import { ANSWER_WITHIN_MS, type ReplaceableGateway } from "./ReplaceableGateway.ts"
import type { Verdict } from "./Verdict.ts"

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 60)} … ${text.slice(-40)} (${text.length} chars)`

const describeVerdict = (gateway: ReplaceableGateway, world: World, verdict: Verdict): string => {
  const { request, answer } = verdict
  // the headers every request starts from are left out: what is shown is what was generated
  const usual = viaFake(world)
  const headers = Object.entries(request.headers).filter(([name, value]) => usual[name] !== value)
  const got = answer._tag === "Answered"
    ? `${answer.status} in ${answer.ms} ms: ${clip(answer.text, 300)}`
    : answer._tag === "NoAnswer"
    ? `no answer within ${ANSWER_WITHIN_MS} ms`
    : `connection broken after ${answer.ms} ms: ${answer.cause}`
  const log = gateway.all.flatMap((process) => process.output().split("\n")).filter((line) =>
    line.includes(verdict.traceId)
  ).slice(0, 3).map((line) => clip(line, 400))
  return [
    `      ${request.method} ${request.path} — ${request.label}`,
    `      problems: ${verdict.problems.map((p) => `${p.kind}${p.detail === "" ? "" : ` (${p.detail})`}`).join("; ")}`,
    `      headers: ${
      headers.length === 0 ? "the usual" : headers.map(([n, v]) => `${n}: ${clip(v, 160)}`).join(" | ")
    }`,
    `      body: ${clip(request.body, 300)}`,
    `      answer: ${got}`,
    ...log.map((line) => `      gateway log: ${line}`)
  ].join("\n")
}

export const failureReport = (gateway: ReplaceableGateway, world: World, result: CategoryResult): string => {
  const counts = new Map<string, number>()
  for (const { problems } of result.failures) {
    for (const { kind } of problems) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  const lines = [
    `${result.name}: ${result.failures.length} of ${result.sent} requests failed (${
      [...counts].map(([kind, n]) => `${kind}: ${n}`).join(", ")
    })`
  ]
  if (result.restarts > 0) {
    lines.push(`  the process stopped answering /health and was replaced ${result.restarts} time(s)`)
  }
  if (result.notSent > 0) {
    lines.push(`  ${result.notSent} requests were not sent: cut short after ${RESTARTS_PER_CATEGORY} replacements`)
  }
  result.shown.forEach((item, position) => {
    lines.push(`  #${position + 1} as generated:`, describeVerdict(gateway, world, item.original))
    if (item.replay === "not replayed") lines.push("    (not replayed alone: the category spent its restarts)")
    if (item.shrunk !== undefined && item.shrinks > 0) {
      lines.push(`    shrunk (${item.shrinks} steps):`, describeVerdict(gateway, world, item.shrunk))
    }
  })
  if (result.bystanders.length > 0) {
    lines.push("  did not fail when replayed alone (a bystander of a blocked process, or state-dependent), e.g.:")
  }
  for (const { original, alone } of result.bystanders.slice(0, 3)) {
    const then = alone?.answer._tag === "Answered" ? `${alone.answer.status} in ${alone.answer.ms} ms` : "-"
    lines.push(`      ${original.problems.map((p) => p.kind).join("; ")} — ${original.request.label} (alone: ${then})`)
  }
  return lines.join("\n")
}

const COLUMNS = words("sent 2xx 4xx 5xx none broken failures restarts gen-ms ms")

export const summary = (seed: number, results: ReadonlyArray<CategoryResult>): string => {
  const row = (name: string, cells: ReadonlyArray<string | number>) =>
    name.padEnd(17) +
    cells.map((cell, index) => String(cell).padStart(Math.max(COLUMNS[index]?.length ?? 0, 6) + 2)).join("")
  const lines = [
    `fuzz (seed ${seed}): ${results.reduce((sum, r) => sum + r.sent, 0)} requests`,
    row("category", COLUMNS)
  ]
  for (const r of results) {
    const statuses = ["2xx", "4xx", "5xx", "NoAnswer", "Broken"].map((key) => r.byStatus[key] ?? 0)
    lines.push(row(r.name, [r.sent, ...statuses, r.failures.length, r.restarts, r.generatedMs, r.ms]))
  }
  lines.push("slowest answers:")
  for (const r of results) {
    for (const { answer, request } of r.slowest) {
      const status = answer._tag === "Answered" ? answer.status : answer._tag
      lines.push(`  ${r.name}: ${answer.ms} ms (${status}) ${clip(request.label, 140)}`)
    }
  }
  return lines.join("\n")
}
