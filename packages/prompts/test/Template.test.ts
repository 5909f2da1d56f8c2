import { assert, describe, it } from "@effect/vitest"
import { Template } from "@switchyard/prompts"
import { Effect } from "effect"

const user = (content: unknown) => ({ role: "user", content })

/** The first message's content, rendered. */
const render = (content: unknown, variables: Record<string, unknown>, partials?: Record<string, string>) =>
  Effect.map(
    Template.render({ template: [user(content)], partials }, variables),
    (messages) => (messages[0] as { readonly content: unknown }).content
  )

const failure = (content: string, variables: Record<string, unknown>, partials?: Record<string, string>) =>
  Effect.flip(render(content, variables, partials))

describe("Template.render", () => {
  it.effect("substitutes variables and never HTML-escapes, in any of the three tag forms", () =>
    Effect.gen(function*() {
      const text = yield* render("{{a}} {{{a}}} {{&a}}", { a: `<b>"Tom" & 'Jerry'</b>` })
      assert.strictEqual(text, `<b>"Tom" & 'Jerry'</b> <b>"Tom" & 'Jerry'</b> <b>"Tom" & 'Jerry'</b>`)
    }))

  it.effect("writes numbers and booleans as text, objects and lists as JSON", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* render("{{n}} {{t}} {{o}} {{l}}", { n: 2.5, t: false, o: { k: "v" }, l: [1, "x"] }),
        `2.5 false {"k":"v"} [1,"x"]`
      )
    }))

  it.effect("resolves dotted names and names of enclosing sections", () =>
    Effect.gen(function*() {
      const text = yield* render("{{#order}}{{id}} for {{customer.name}} by {{shop}}{{/order}}", {
        shop: "Corner",
        order: { id: 7, customer: { name: "Ada" } }
      })
      assert.strictEqual(text, "7 for Ada by Corner")
    }))

  it.effect("repeats a section per item of a list, with {{.}} for plain items", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* render("{{#xs}}[{{.}}]{{/xs}}", { xs: ["a", "b", 3] }), "[a][b][3]")
      assert.strictEqual(yield* render("{{#xs}}{{n}},{{/xs}}", { xs: [{ n: 1 }, { n: 2 }] }), "1,2,")
    }))

  it.effect("treats false, null, empty strings and empty lists as falsy, for sections and inverted sections", () =>
    Effect.gen(function*() {
      for (const value of [false, null, "", []]) {
        assert.strictEqual(yield* render("{{#v}}yes{{/v}}{{^v}}no{{/v}}", { v: value }), "no", JSON.stringify(value))
      }
      assert.strictEqual(yield* render("{{#v}}yes{{/v}}{{^v}}no{{/v}}", { v: true }), "yes")
    }))

  it.effect("renders partials, recursively over nested data", () =>
    Effect.gen(function*() {
      const tree = { name: "a", kids: [{ name: "b", kids: [{ name: "c", kids: [] }] }, { name: "d", kids: [] }] }
      assert.strictEqual(
        yield* render("{{> node}}", tree, { node: "{{name}}{{#kids}}({{> node}}){{/kids}}" }),
        "a(b(c))(d)"
      )
    }))

  it.effect("renders every string of a message except role and type: content parts and names too", () =>
    Effect.gen(function*() {
      const messages = yield* Template.render({
        template: [
          { role: "system", content: "You are {{who}}" },
          { role: "user", name: "{{who}}", content: [{ type: "text", text: "Hi {{who}}" }] }
        ]
      }, { who: "Ada", role: "ignored" })
      assert.deepStrictEqual(messages, [
        { role: "system", content: "You are Ada" },
        { role: "user", name: "Ada", content: [{ type: "text", text: "Hi Ada" }] }
      ])
    }))

  it.effect("writes a value holding tags as text: variables are never rendered themselves", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* render("{{a}}", { a: "{{b}} {{#c}}x{{/c}}", b: "no" }), "{{b}} {{#c}}x{{/c}}")
    }))

  it.effect("follows changed delimiters, for text that holds {{ itself", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* render("{{=<% %>=}}<% name %> writes {{literal}}", { name: "Ada" }),
        "Ada writes {{literal}}"
      )
      assert.strictEqual((yield* failure("{{=<% %>=}}<% gone %>", {})).param, "variables.gone")
    }))

  it.effect("keeps a template without tags as it is, comments dropped", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* render("plain {{! a note }}text", {}), "plain text")
    }))

  it.effect("names a missing variable by its path, inside sections and lists too", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* failure("Hi {{name}}", {})).param, "variables.name")
      assert.strictEqual((yield* failure("{{user.name}}", { user: {} })).param, "variables.user.name")
      assert.strictEqual(
        (yield* failure("{{#items}}{{sku}}{{/items}}", { items: [{ sku: 1 }, {}] })).param,
        "variables.items[1].sku"
      )
      assert.strictEqual((yield* failure("{{#gone}}x{{/gone}}", {})).param, "variables.gone")
      assert.strictEqual((yield* failure("{{^gone}}x{{/gone}}", {})).param, "variables.gone")
    }))

  it.effect("finds nothing on Object's or Array's prototype: such names are missing", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* failure("{{constructor}}", {})).param, "variables.constructor")
      assert.strictEqual((yield* failure("{{xs.map}}", { xs: [1] })).param, "variables.xs.map")
      assert.strictEqual(yield* render("{{xs.length}}", { xs: [1, 2] }), "2")
    }))

  it.effect("refuses an object written with {{{…}}}, which Mustache would write as [object Object]", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* failure("{{{o}}}", { o: { a: 1 } })).param, "variables.o")
    }))

  it.effect("bounds the work: output size, steps, and partials that never end", () =>
    Effect.gen(function*() {
      const big = "x".repeat(1024 * 1024)
      const tooLong = yield* failure("{{#xs}}{{big}}{{/xs}}", { big, xs: [1, 2, 3, 4, 5] })
      assert.include(tooLong.message, "more text")
      const list = Array.from({ length: 200 }, (_, index) => index)
      const tooMany = yield* failure("{{#xs}}{{#xs}}{{#xs}}{{/xs}}{{/xs}}{{/xs}}", { xs: list })
      assert.include(tooMany.message, "too many steps")
      const endless = yield* failure("{{> loop}}", { xs: [1] }, { loop: "{{#xs}}{{> loop}}{{/xs}}" })
      assert.include(endless.message, "partials more than")
    }))
})

describe("Template.check", () => {
  it.effect("names the string that does not parse, with Mustache's reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Template.check({ template: [user("fine"), { role: "assistant", content: "{{#a}}{{/b}}" }] })
      )
      assert.strictEqual(error.param, "template[1].content")
      assert.match(error.message, /Unclosed section "a"/)
    }))

  it.effect("refuses partials that are not defined or do not parse", () =>
    Effect.gen(function*() {
      const undefinedPartial = yield* Effect.flip(Template.check({ template: [user("{{> footer}}")] }))
      assert.include(undefinedPartial.message, `"footer"`)
      const badPartial = yield* Effect.flip(
        Template.check({ template: [user("{{> footer}}")], partials: { footer: "{{#x}}" } })
      )
      assert.strictEqual(badPartial.param, "partials.footer")
      yield* Template.check({ template: [user("{{> footer}}")], partials: { footer: "-- {{sig}}" } })
    }))
})
