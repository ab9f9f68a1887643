// What a reader of another agent's session file produces (issue 31): one conversation tree in a
// neutral shape, before it becomes Tangent sessions (docs/architecture.md, "Moving in and out").
// Readers are pure (text in, tree out) and know one tool's format at its recorded version; the
// converter (imports/convert.ts) turns a tree into sessions, a fork at each branching point.

/** The tools Tangent reads sessions from, and its own bundle. */
export type ImportSource = 'claude' | 'codex' | 'pi' | 'tangent'

export interface ImportedUsage {
  inputTokens?: number
  outputTokens?: number
  cachedInputTokens?: number
  reasoningTokens?: number
}

export interface ImportedToolCall {
  /** The source's id of the call; a `tool-result` entry names it. */
  id: string
  /** Tangent's tool name where one corresponds (`read`, `write`, `edit`, `bash`, `grep`, `list`), else the source's own. */
  name: string
  input: unknown
  /** The source's own tool name, when `name` maps it to a Tangent tool. */
  sourceName?: string
}

interface EntryBase {
  /** The source's id of the record (unique in the tree); the idempotency key with `sourceId`. */
  id: string
  /** The entry it follows; null for a root. Two entries with one parent: a branch. */
  parentId: string | null
  /** Epoch ms, when the source recorded it. */
  time?: number
  /** The 1-based line of the file the entry came from, for messages. */
  line?: number
}

export type ImportedEntry = EntryBase &
  (
    | { kind: 'user'; text: string; images?: { mediaType: string; data: string }[] }
    | {
        kind: 'assistant'
        text: string
        reasoning?: string
        toolCalls: ImportedToolCall[]
        /** `provider:model` when recorded. */
        model?: string
        usage?: ImportedUsage
      }
    | { kind: 'tool-result'; callId: string; toolName: string; output: string; isError: boolean }
    /** A summary standing for the history before it: a compaction, or pi's branch summary. */
    | { kind: 'summary'; text: string; summaryOf: 'compaction' | 'branch' }
    /** A record Tangent does not understand, kept whole (`import/unknown`), never dropped. */
    | { kind: 'unknown'; type: string; raw: unknown }
  )

/** A side conversation (Claude Code's sidechains, a subagent) under the entry that started it. */
export interface ImportedSubtree {
  /** The tool call (its id) or entry that started it. */
  startedBy: string
  tree: ImportedTree
}

export interface ImportedTree {
  source: ImportSource
  /** The source's session id: importing the same one again makes nothing new. */
  sourceId: string
  /** The tool's version recorded in the file (readers refuse versions they were not written for). */
  sourceVersion?: string
  /** The folder the session worked in, when recorded. */
  cwd: string | null
  title?: string
  /** The model of the first assistant message, `provider:model`, when recorded. */
  model?: string
  /**
   * The session this one continues without copying it (Codex's `codex exec fork` writes a rollout
   * that names its parent): its entries follow the parent's last entry at or before `throughLine`
   * of the parent's file. The import (import-tree.ts) makes this session a fork of the parent's
   * import there when the parent was imported first, else a start of its own.
   */
  forkedFrom?: { sourceId: string; throughLine: number }
  /** In file order. */
  entries: ImportedEntry[]
  subtrees: ImportedSubtree[]
  /** Lines that could not be read (the rest is imported): 1-based line and why. */
  problems: { line: number; message: string }[]
}
