// Checks an ACP conversation, line by line, against the JSON schemas shipped in the pinned
// @agentclientprotocol/sdk (v1 stable and unstable): JSON-RPC framing, each request's and
// notification's params by method, each response's result by the method of the request it answers
// (ids tracked both ways), and every error as a JSON-RPC error object. `tangent acp` uses the
// unstable entrypoint, so the unstable schema decides; a message the stable one lacks or refuses
// is reported as unstable-only, not as a failure.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

/** Who wrote a line: the agent (`tangent acp`'s stdout) or the client (the editor). */
export type AcpSide = 'agent' | 'client'

export type AcpMessageKind = 'request' | 'notification' | 'response' | 'malformed'

/** What the conversation checker says about one line. */
export interface AcpVerdict {
  /** Position in the conversation (0-based), both sides counted. */
  index: number
  from: AcpSide
  kind: AcpMessageKind
  /** The method: the request's or notification's own, or for a response the one it answers. */
  method?: string
  id?: unknown
  /** Empty when the line conforms; else one line per problem (`path: what`). */
  problems: string[]
  /**
   * The stable schema's view: `pass`, `fail` (unstable-only content), `absent` (an unstable-only
   * method), or `n/a` (nothing method-bound to check: malformed, an error, an extension method).
   */
  stable: 'pass' | 'fail' | 'absent' | 'n/a'
  /** The parsed message (undefined when the line is not JSON). */
  message?: Record<string, unknown>
  line: string
}

type Shape = 'Request' | 'Response' | 'Notification'

interface SchemaDefinition {
  'x-side'?: string
  'x-method'?: string
  [key: string]: unknown
}

interface SchemaDocument {
  anyOf: { title: string }[]
  $defs: Record<string, SchemaDefinition>
}

// ajv's packages are CommonJS: under NodeNext their default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** The integer and float formats the ACP schema (generated from Rust) names. */
const numberFormats: Record<string, (value: number) => boolean> = {
  int32: (value) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
  uint16: (value) => Number.isInteger(value) && value >= 0 && value < 2 ** 16,
  uint32: (value) => Number.isInteger(value) && value >= 0 && value < 2 ** 32,
  // JSON numbers past 2^53 are not exact in JavaScript: accept any safe integer of the sign.
  int64: (value) => Number.isSafeInteger(value),
  uint64: (value) => Number.isSafeInteger(value) && value >= 0,
  double: (value) => Number.isFinite(value),
  float: (value) => Number.isFinite(value),
}

/** One of the two pinned schema documents, compiled: validators by side, method and shape. */
export class AcpSchema {
  private readonly ajv: Ajv2020
  private readonly byMethod = new Map<string, string>()
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(
    readonly name: 'stable' | 'unstable',
    document: SchemaDocument,
  ) {
    this.ajv = new Ajv2020({ allErrors: true, discriminator: true, strict: true, strictTypes: false })
    this.ajv.addVocabulary([
      'x-side',
      'x-method',
      'x-docs-ignore',
      'x-deserialize-default-on-error',
      'x-deserialize-default-on-null',
      'x-deserialize-skip-invalid-items',
    ])
    addFormats(this.ajv, ['uri'])
    for (const [format, validate] of Object.entries(numberFormats))
      this.ajv.addFormat(format, { type: 'number', validate })
    this.ajv.addSchema(document as object, 'acp')
    for (const [name, definition] of Object.entries(document.$defs)) {
      const side = definition['x-side']
      const method = definition['x-method']
      const shape = (['Request', 'Response', 'Notification'] as const).find((s) => name.endsWith(s))
      if (side && method && shape) this.byMethod.set(`${side} ${method} ${shape}`, name)
    }
  }

  /**
   * The definition for a method's params (Request, Notification) or result (Response), where
   * `handler` is the side that handles the method (the schema's `x-side`): the agent for
   * `session/prompt`, the client for `session/update` and `fs/read_text_file`.
   */
  definitionFor(handler: AcpSide | 'protocol', method: string, shape: Shape): string | undefined {
    return this.byMethod.get(`${handler} ${method} ${shape}`)
  }

  /** The methods a side handles, by shape: what the scenario may cover. */
  methods(handler: AcpSide | 'protocol', shape: Shape): string[] {
    const prefix = `${handler} `
    return [...this.byMethod.keys()]
      .filter((key) => key.startsWith(prefix) && key.endsWith(` ${shape}`))
      .map((key) => key.split(' ')[1]!)
  }

  /** Validates a value against a definition (`#/$defs/NAME`); the problems, empty when it conforms. */
  check(definition: string, value: unknown, at = ''): string[] {
    return describeErrors(this.validator(`acp#/$defs/${definition}`)(value), at)
  }

  /** Validates a whole message against the top-level entry for its sender (`Agent`, `Client`, `ProtocolLevel`). */
  checkEnvelope(
    title: 'Agent' | 'Client' | 'ProtocolLevel',
    message: unknown,
    document: SchemaDocument,
  ): string[] {
    const index = document.anyOf.findIndex((entry) => entry.title === title)
    if (index < 0) return [`the schema has no top-level ${title} entry`]
    return describeErrors(this.validator(`acp#/anyOf/${index}`)(message), '')
  }

  private validator(ref: string): (value: unknown) => ErrorObject[] {
    let validate = this.compiled.get(ref)
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref })
      this.compiled.set(ref, validate)
    }
    const compiled = validate
    return (value) => (compiled(value) ? [] : [...(compiled.errors ?? [])])
  }
}

/**
 * ajv's errors as short lines, deepest first (an `anyOf` reports every branch it tried; the
 * deepest paths are where the message went wrong), at most eight.
 */
function describeErrors(errors: ErrorObject[], at: string): string[] {
  if (errors.length === 0) return []
  const sorted = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)
  const lines = [
    ...new Set(
      sorted.map(
        (error) =>
          `${at + error.instancePath || '/'}: ${error.message ?? error.keyword} ${JSON.stringify(error.params)} (${error.schemaPath})`,
      ),
    ),
  ]
  return lines.length > 8 ? [...lines.slice(0, 8), `… and ${lines.length - 8} more`] : lines
}

export interface PinnedAcpSchemas {
  stable: AcpSchema
  unstable: AcpSchema
  documents: { stable: SchemaDocument; unstable: SchemaDocument }
}

/** The v1 schemas of the installed (pinned) SDK, compiled once per call. */
export function loadPinnedAcpSchemas(): PinnedAcpSchemas {
  const require = createRequire(import.meta.url)
  const read = (file: string) =>
    JSON.parse(
      fs.readFileSync(require.resolve(`@agentclientprotocol/sdk/schema/v1/${file}`), 'utf8'),
    ) as SchemaDocument
  const documents = { stable: read('schema.json'), unstable: read('schema.unstable.json') }
  return {
    stable: new AcpSchema('stable', documents.stable),
    unstable: new AcpSchema('unstable', documents.unstable),
    documents,
  }
}

const jsonRpcMembers = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error'])

function other(side: AcpSide): AcpSide {
  return side === 'agent' ? 'client' : 'agent'
}

/**
 * A conversation between one client and one agent, checked as it goes: feed it every line
 * each side writes, in the order they were written (`check`), then read `verdicts`.
 */
export class AcpConversation {
  readonly verdicts: AcpVerdict[] = []
  /** Requests each side sent that are not answered yet: id (JSON) → method. */
  private readonly pending: Record<AcpSide, Map<string, string>> = { agent: new Map(), client: new Map() }

  constructor(private readonly schemas: PinnedAcpSchemas = loadPinnedAcpSchemas()) {}

  /** Checks one line as `from` wrote it (without its newline). */
  check(from: AcpSide, line: string): AcpVerdict {
    const verdict = this.judge(from, line)
    this.verdicts.push(verdict)
    return verdict
  }

  /** Requests never answered, by the side that sent them. */
  unanswered(): { from: AcpSide; id: string; method: string }[] {
    return (['agent', 'client'] as const).flatMap((from) =>
      [...this.pending[from]].map(([id, method]) => ({ from, id, method })),
    )
  }

  private judge(from: AcpSide, line: string): AcpVerdict {
    const index = this.verdicts.length
    const base = { index, from, line, stable: 'n/a' as AcpVerdict['stable'] }
    // Newline-delimited JSON: one message a line, `\n` only (a `\r` would pass JSON.parse).
    if (line.includes('\r'))
      return { ...base, kind: 'malformed', problems: ['a line must end with \\n alone (no \\r)'] }
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (error) {
      return { ...base, kind: 'malformed', problems: [`not JSON: ${(error as Error).message}`] }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { ...base, kind: 'malformed', problems: ['a message must be one JSON object (no batches)'] }
    const message = parsed as Record<string, unknown>
    const problems: string[] = []
    if (message.jsonrpc !== '2.0')
      problems.push(`/jsonrpc: must be "2.0", is ${JSON.stringify(message.jsonrpc)}`)
    for (const key of Object.keys(message))
      if (!jsonRpcMembers.has(key)) problems.push(`/${key}: not a JSON-RPC 2.0 member`)

    const hasId = 'id' in message
    if (typeof message.method === 'string') {
      const kind = hasId ? 'request' : 'notification'
      return { ...base, message, ...this.judgeCall(from, kind, message, problems) }
    }
    if ('method' in message) problems.push('/method: must be a string')
    if (!hasId)
      return { ...base, message, kind: 'malformed', problems: [...problems, 'neither a call nor a response'] }
    return { ...base, message, kind: 'response', ...this.judgeResponse(from, message, problems) }
  }

  private judgeCall(
    from: AcpSide,
    kind: 'request' | 'notification',
    message: Record<string, unknown>,
    problems: string[],
  ): Pick<AcpVerdict, 'kind' | 'method' | 'id' | 'problems' | 'stable'> {
    const method = message.method as string
    const shape: Shape = kind === 'request' ? 'Request' : 'Notification'
    if (kind === 'request') {
      const id = message.id
      if (typeof id !== 'string' && !Number.isInteger(id))
        problems.push(`/id: a request's id must be a string or an integer, is ${JSON.stringify(id)}`)
      const key = JSON.stringify(id)
      if (this.pending[from].has(key))
        problems.push(`/id: ${key} is already used by a request not yet answered`)
      this.pending[from].set(key, method)
    }
    const { unstable, documents } = this.schemas
    const protocolLevel = unstable.definitionFor('protocol', method, shape)
    problems.push(
      ...(protocolLevel
        ? unstable.checkEnvelope('ProtocolLevel', message, documents.unstable)
        : unstable.checkEnvelope(from === 'agent' ? 'Agent' : 'Client', message, documents.unstable)),
    )
    // Extension methods (`_name`) carry whatever the two sides agreed on.
    if (method.startsWith('_')) return { kind, method, id: message.id, problems, stable: 'n/a' }
    const handler = protocolLevel ? 'protocol' : other(from)
    const definition = unstable.definitionFor(handler, method, shape)
    if (!definition) {
      problems.push(
        `/method: ${from === 'agent' ? 'an agent' : 'a client'} may not send the ${kind} ${method}`,
      )
      return { kind, method, id: message.id, problems, stable: 'n/a' }
    }
    const params = message.params
    problems.push(...unstable.check(definition, params, '/params'))
    return { kind, method, id: message.id, problems, stable: this.stableView(handler, method, shape, params) }
  }

  private judgeResponse(
    from: AcpSide,
    message: Record<string, unknown>,
    problems: string[],
  ): Pick<AcpVerdict, 'method' | 'id' | 'problems' | 'stable'> {
    const id = message.id
    const hasResult = 'result' in message
    const hasError = 'error' in message
    if (hasResult === hasError) problems.push('a response has exactly one of result and error')
    const { unstable, documents } = this.schemas
    problems.push(
      ...unstable.checkEnvelope(from === 'agent' ? 'Agent' : 'Client', message, documents.unstable),
    )
    if (hasError) problems.push(...unstable.check('Error', message.error, '/error'))
    if (id === null) {
      // Only for a request the sender could not read (JSON-RPC 2.0 §5).
      const code = (message.error as { code?: unknown } | undefined)?.code
      if (!hasError || (code !== -32700 && code !== -32600))
        problems.push('/id: null only in a parse error (-32700) or invalid request (-32600) answer')
      return { id, problems, stable: 'n/a' }
    }
    const key = JSON.stringify(id)
    const method = this.pending[other(from)].get(key)
    if (method === undefined) {
      problems.push(`/id: ${key} answers no request the ${other(from)} sent (or one already answered)`)
      return { id, problems, stable: 'n/a' }
    }
    this.pending[other(from)].delete(key)
    if (hasError || method.startsWith('_')) return { method, id, problems, stable: 'n/a' }
    const definition = unstable.definitionFor(from, method, 'Response')
    if (!definition) {
      problems.push(`/result: ${method} has no result in the schema (only an error can answer it)`)
      return { method, id, problems, stable: 'n/a' }
    }
    problems.push(...unstable.check(definition, message.result, '/result'))
    return { method, id, problems, stable: this.stableView(from, method, 'Response', message.result) }
  }

  private stableView(
    handler: AcpSide | 'protocol',
    method: string,
    shape: Shape,
    value: unknown,
  ): AcpVerdict['stable'] {
    const definition = this.schemas.stable.definitionFor(handler, method, shape)
    if (!definition) return 'absent'
    return this.schemas.stable.check(definition, value).length === 0 ? 'pass' : 'fail'
  }
}

/** A readable list of the verdicts with problems: one block per message (who, what, which id, why). */
export function formatProblems(verdicts: readonly AcpVerdict[]): string {
  return verdicts
    .filter((verdict) => verdict.problems.length > 0)
    .map((verdict) => {
      const what = `#${verdict.index} ${verdict.from} ${verdict.kind} ${verdict.method ?? '?'} id=${JSON.stringify(verdict.id)}`
      const line = verdict.line.length > 300 ? `${verdict.line.slice(0, 300)}…` : verdict.line
      return [what, ...verdict.problems.map((problem) => `  ${problem}`), `  line: ${line}`].join('\n')
    })
    .join('\n')
}

/** What the stable schema lacks, by message: `from kind method` → count (for the report). */
export function unstableOnly(verdicts: readonly AcpVerdict[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const verdict of verdicts) {
    if (verdict.problems.length > 0 || (verdict.stable !== 'fail' && verdict.stable !== 'absent')) continue
    const key = `${verdict.from} ${verdict.kind} ${verdict.method} (${verdict.stable === 'absent' ? 'method' : 'content'})`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}
