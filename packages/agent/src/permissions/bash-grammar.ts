// The bash grammar the permission policy parses command lines with (docs/architecture.md §12.1):
// tree-sitter-bash, run by web-tree-sitter (WebAssembly, no native build). Both .wasm files come
// from node_modules, resolved from this module's location, so the same code works from the
// packages' dist and from the CLI's bundle; nothing is downloaded at run time.
//
// Loading is asynchronous (WebAssembly compiles), the policy is synchronous: whoever decides calls
// `loadBashGrammar()` first (the runtime's decider, the CLI's approvals). Before that,
// `parseBashSyntax` returns null and the policy treats every bash line as not understood: it asks,
// it never allows by rule (fail closed).
import type { Parser, TreeCursor } from 'web-tree-sitter'

/** A node of the parse tree, copied out of WebAssembly memory (the tree is freed at once). */
export interface SyntaxNode {
  /** The grammar's kind: `command`, `word`, `"&&"` is `&&` (anonymous nodes are their text). */
  readonly type: string
  readonly named: boolean
  /** The source text the node spans. */
  readonly text: string
  /** A node the parser made up to recover from an error (`MISSING`), or an `ERROR` node. */
  readonly broken: boolean
  /** The field the parent holds it in (`name`, `argument`, `redirect`, `destination`…), if any. */
  readonly field: string | null
  readonly children: readonly SyntaxNode[]
}

// The one parser of the process, memoised: the WebAssembly module is process-wide in
// web-tree-sitter anyway, and every decision needs the same immutable grammar.
let ready: Promise<void> | undefined
let loaded: Parser | undefined

/** Loads the grammar once: later calls return the same promise (a failed load is tried again). */
export function loadBashGrammar(): Promise<void> {
  ready ??= initialise().then(
    (parser) => {
      loaded = parser
    },
    (error: unknown) => {
      ready = undefined
      throw new Error(`Could not load the bash grammar (tree-sitter-bash): ${(error as Error).message}`, {
        cause: error,
      })
    },
  )
  return ready
}

/** Whether `loadBashGrammar()` has finished: until then the policy asks about every bash line. */
export function bashGrammarLoaded(): boolean {
  return loaded !== undefined
}

async function initialise(): Promise<Parser> {
  const { createRequire } = process.getBuiltinModule('node:module')
  const { readFile } = process.getBuiltinModule('node:fs/promises')
  const require = createRequire(import.meta.url)
  // Imported here, not at the top: @tangent/agent/light (start-up) must not load it, nor reach a browser bundle.
  const { Parser, Language } = await import('web-tree-sitter')
  const [runtime, grammar] = await Promise.all([
    readFile(require.resolve('web-tree-sitter/tree-sitter.wasm')),
    readFile(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
  ])
  await Parser.init({ wasmBinary: runtime } as Parameters<typeof Parser.init>[0])
  const parser = new Parser()
  parser.setLanguage(await Language.load(grammar))
  return parser
}

/** The syntax tree of a line, or null when the grammar is not loaded yet. */
export function parseBashSyntax(line: string): SyntaxNode | null {
  if (!loaded) return null
  const tree = loaded.parse(line)
  if (!tree) return null
  try {
    return copyTree(tree.walk(), line)
  } finally {
    tree.delete()
  }
}

/** Deeper than this a node is copied as an error: nobody writes such lines, and the policy asks. */
const maxCopyDepth = 1000

interface CopiedNode {
  type: string
  named: boolean
  text: string
  broken: boolean
  field: string | null
  children: CopiedNode[]
}

/** Copies the tree with one cursor, depth first (far fewer calls into WebAssembly than Node objects). */
function copyTree(cursor: TreeCursor, line: string): SyntaxNode {
  const copy = (): CopiedNode => ({
    type: cursor.nodeType,
    named: cursor.nodeIsNamed,
    // Indices count UTF-16 code units of the string parsed.
    text: line.slice(cursor.startIndex, cursor.endIndex),
    broken: cursor.nodeIsMissing || cursor.nodeType === 'ERROR',
    field: cursor.currentFieldName,
    children: [],
  })
  const enter = (path: CopiedNode[]) => {
    const node = copy()
    path.at(-1)!.children.push(node)
    path.push(node)
  }
  try {
    const path = [copy()]
    for (;;) {
      if (path.length <= maxCopyDepth) {
        if (cursor.gotoFirstChild()) {
          enter(path)
          continue
        }
      } else if (cursor.gotoFirstChild()) {
        cursor.gotoParent()
        path.at(-1)!.broken = true
      }
      for (;;) {
        if (path.length === 1) return path[0]!
        path.pop()
        if (cursor.gotoNextSibling()) {
          enter(path)
          break
        }
        cursor.gotoParent()
      }
    }
  } finally {
    cursor.delete()
  }
}
