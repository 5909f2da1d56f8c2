/** `default.jsonSchema {schema, not}`: the JSON in the text validates against a JSON Schema (ajv). */
import { Ajv, type Options, type ValidateFunction } from "ajv"
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { compileRegex, jsonIn, Not } from "./Parameters.ts"

/** `pattern` and `patternProperties` of a caller's schema run on RE2, in linear time, as `regexMatch` does. */
const linearRegExp: NonNullable<NonNullable<Options["code"]>["regExp"]> = Object.assign(
  (pattern: string) => {
    const regex = compileRegex(pattern)
    return { test: (text: string) => regex.test(text) }
  },
  { code: "re2js.RE2JS" }
)

const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExp } })
// one compiled validator per schema object: a config's parameters are decoded once and kept
const compiled = new WeakMap<object, ValidateFunction>()

const validatorOf = (schema: { readonly [key: string]: unknown }): ValidateFunction => {
  const known = compiled.get(schema)
  if (known !== undefined) return known
  const validate = ajv.compile(schema)
  compiled.set(schema, validate)
  return validate
}

export const jsonSchema = Check.make({
  id: "default.jsonSchema",
  parameters: Schema.Struct({ schema: Schema.Record(Schema.String, Schema.Unknown), not: Not }),
  run: (context, { not, schema }) =>
    Effect.try({
      try: () => validatorOf(schema),
      catch: (error) => new Check.CheckError({ message: `invalid JSON Schema: ${String(error)}` })
    }).pipe(Effect.map((validate) => {
      const found = jsonIn(Check.textOf(context))
      if (found === undefined) {
        return Check.verdict(false, not, { holds: "", fails: "the text holds no JSON" })
      }
      const valid = validate(found.value)
      const errors = (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""}`)
      return Check.verdict(valid, not, {
        holds: "the JSON matches the schema",
        fails: `the JSON does not match the schema: ${errors.join("; ")}`
      }, valid ? undefined : { errors })
    }))
})
