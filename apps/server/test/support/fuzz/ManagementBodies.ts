/**
 * Bodies of the management routes: a member of the wrong type, a member no one knows, a
 * required one removed, nesting thousands deep, bodies past the 1 MiB the routes read, broken
 * text; and configs with one change posted to /v1/configs.
 */
import fc from "fast-check"
import { mutatedConfig } from "./Configs.ts"
import { type Case, type FuzzRequest, JSON_HEADERS, type World } from "./FuzzRequest.ts"
import {
  type Json,
  type JsonRecord,
  kindOf,
  nestedText,
  openDepth,
  type Path,
  raw,
  refusalOfText,
  setAt,
  short,
  toText
} from "./JsonText.ts"
import { type ManagementSpec, managementSpecs } from "./ManagementSpecs.ts"
import { rawText } from "./RawBodies.ts"
import { depth, nesting, tooDeep, unknownName, wrongValue } from "./ValueArbitraries.ts"

/** The management routes read at most 1 MiB (ManagementRoute.ts). */
const MANAGEMENT_MAX_BODY = 1024 * 1024

const managementBody = (world: World, spec: ManagementSpec): fc.Arbitrary<Case<string>> => {
  const base = spec.base(world)
  const changed = (body: JsonRecord, path: Path, value: Json | undefined) => toText(setAt(body, path, value).value)
  return fc.oneof(
    { weight: 1, arbitrary: base.map((body) => ({ value: toText(body), label: "a valid body", refuse: undefined })) },
    {
      weight: 6,
      arbitrary: fc.tuple(base, fc.constantFrom(...Object.keys(spec.fields)), wrongValue).map(
        ([body, name, generated]) => {
          // a slug stays one no request names (a refused one), a host stays the fake (or no string at all)
          const value = kindOf(generated) !== "string"
            ? generated
            : name === "slug"
            ? `!${generated}`
            : name === "custom_host"
            ? null
            : generated
          // NaN and the infinities are written as null, which an optional nullable member accepts
          const sent = typeof value === "number" && !Number.isFinite(value) ? null : value
          const wrong = name === "slug" ||
            (kindOf(sent) !== spec.fields[name] && !(sent === null && !spec.required.includes(name)))
          return {
            value: changed(body, [name], value),
            label: `${name} = ${short(value)}`,
            refuse: wrong ? `${name} must be a valid ${spec.fields[name]}` : undefined
          }
        }
      )
    },
    {
      weight: 2,
      arbitrary: fc.tuple(base, unknownName, wrongValue).map(([body, name, value]) => ({
        value: changed(body, [name], value),
        label: `unknown member ${JSON.stringify(name)}`,
        refuse: `${name} is not a member (the bodies are closed)`
      }))
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.constantFrom(...spec.required, "name")).map(([body, name]) => ({
        value: changed(body, [name], undefined),
        label: `no ${name}`,
        refuse: spec.required.includes(name) ? `${name} is required` : undefined
      }))
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, depth(5_000), nesting).map(([body, levels, shape]) => {
        // the nested value is the last "name" member: the one the schema reads
        const before = `${toText(body).slice(0, -1)},"name":`
        const total = openDepth(before) + levels
        return {
          value: `${before}${nestedText(levels, shape)}}`,
          label: `name nested ${levels} levels (${shape}); the body is ${total} deep`,
          refuse: `name must be a string; ${tooDeep(total) ?? ""}`
        }
      })
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.integer({ min: 1_000, max: 600_000 })).map(([body, count]) => {
        const name = Object.keys(spec.fields).find((field) => spec.fields[field] === "array") ?? "zz"
        // written as text, two bytes an item (past 1 MiB from about 525,000): cheap to generate
        const value = changed(body, [name], raw(`[${"1,".repeat(count - 1)}1]`))
        return {
          value,
          label: `${name} of ${count} numbers (${value.length} bytes)`,
          refuse: `${name} holds no numbers`
        }
      })
    },
    {
      weight: 2,
      arbitrary: rawText.map((text) => ({
        value: text,
        label: `the text ${JSON.stringify(text.slice(0, 60))}`,
        refuse: refusalOfText(text, "the body")
      }))
    }
  ).map((c) => (c.value.length > MANAGEMENT_MAX_BODY ? { ...c, refuse: c.refuse ?? "larger than 1 MiB" } : c))
}

export const management = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.oneof(
    ...managementSpecs.map((spec) =>
      managementBody(world, spec).map((c): FuzzRequest => ({
        label: `${spec.method} ${spec.name}: ${c.label}`,
        method: spec.method,
        path: spec.path(world),
        headers: JSON_HEADERS,
        body: c.value,
        refuse: c.refuse
      }))
    ),
    mutatedConfig(world).map((c): FuzzRequest => ({
      label: `POST configs with ${c.label}`,
      method: "POST",
      path: "/v1/configs",
      headers: JSON_HEADERS,
      body: toText({ name: "fuzz", config: c.value }),
      refuse: c.refuse
    }))
  )
