import { ReadmeExamples } from "@switchyard/fake-providers"
import { it } from "vitest"

// in test/Examples.test.ts: every ts block of ../README.md is the shown part of a file of ../examples, and back
it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))
