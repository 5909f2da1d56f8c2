/**
 * The built-in `default` plugin: every check a config may name without installing anything.
 * Each check's parameters are listed in the package README.
 */
import type { Check } from "./Check.ts"
import { addPrefix } from "./internal/checks/AddPrefix.ts"
import { allowedRequestTypes } from "./internal/checks/AllowedRequestTypes.ts"
import { characterCount } from "./internal/checks/CharacterCount.ts"
import { contains } from "./internal/checks/Contains.ts"
import { containsCode } from "./internal/checks/ContainsCode.ts"
import { endsWith } from "./internal/checks/EndsWith.ts"
import { jsonKeys } from "./internal/checks/JsonKeys.ts"
import { jsonSchema } from "./internal/checks/JsonSchema.ts"
import { jwt } from "./internal/checks/Jwt.ts"
import { allLowercase, allUppercase } from "./internal/checks/LetterCase.ts"
import { log } from "./internal/checks/Log.ts"
import { modelRules } from "./internal/checks/ModelRules.ts"
import { modelWhitelist } from "./internal/checks/ModelWhitelist.ts"
import { notNull } from "./internal/checks/NotNull.ts"
import { piiDetection } from "./internal/checks/PiiDetection.ts"
import { regexMatch } from "./internal/checks/RegexMatch.ts"
import { regexReplace } from "./internal/checks/RegexReplace.ts"
import { requiredMetadataKeys } from "./internal/checks/RequiredMetadataKeys.ts"
import { sentenceCount } from "./internal/checks/SentenceCount.ts"
import { validUrls } from "./internal/checks/ValidUrls.ts"
import { webhook } from "./internal/checks/Webhook.ts"
import { wordCount } from "./internal/checks/WordCount.ts"

export const checks: ReadonlyArray<Check> = [
  regexMatch,
  sentenceCount,
  wordCount,
  characterCount,
  jsonSchema,
  jsonKeys,
  contains,
  validUrls,
  containsCode,
  endsWith,
  allUppercase,
  allLowercase,
  notNull,
  modelWhitelist,
  modelRules,
  allowedRequestTypes,
  requiredMetadataKeys,
  jwt,
  webhook,
  log,
  piiDetection,
  regexReplace,
  addPrefix
]
