// Shiki for `tangent tui`, loaded only in the worker thread shiki-worker.ts (which code-highlight.ts
// starts with the first block to colour, never at start-up): shiki's core with its JavaScript regex
// engine (no WebAssembly to locate in the bundle), one theme of our own and a fixed set of
// grammars, each imported when a block first names it. The
// theme's colours are not colours: each stands for one of the terminal's own 16 (code-highlight.ts
// maps them), so code reads in the user's palette on a light or a dark background alike.
import type { HighlighterCore, LanguageRegistration, ThemeRegistrationRaw } from 'shiki/core'
import { createHighlighterCore } from 'shiki/core'
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript'
// Types only: code-highlight.ts is the terminal UI's main thread's, this file the worker's.
import type { CodeLanguage, TokenizedLine, terminalPalette } from './code-highlight.js'

type GrammarModule = () => Promise<{ default: LanguageRegistration[] }>

const grammars: Record<CodeLanguage, GrammarModule> = {
  typescript: () => import('shiki/langs/typescript.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  bash: () => import('shiki/langs/bash.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  go: () => import('shiki/langs/go.mjs'),
}

/**
 * A few lines of each language, tokenized once when its grammar loads. The engine compiles a
 * grammar's expressions as they are first used, which for TypeScript takes most of a second: under
 * the time limit a real block is tokenized with (against a hostile text that would make an
 * expression run away), that first compile could cut a line short and paint its rest wrong. These
 * lines are ours, so they run without a limit; a block then costs milliseconds.
 */
const warmUps: Record<CodeLanguage, string> = {
  typescript:
    'import { a } from "b"\n// c\nexport async function f<T>(x: number, y = `s`): Promise<T> {\n  const z = new A(x, 2, true) as T\n  return z\n}\ninterface I { k: string }',
  javascript:
    'import { a } from "b"\n// c\nexport async function f(x, y = `s`) {\n  const z = new A(x, 2, true)\n  return z\n}',
  tsx: 'export function C({ a }: { a: string }) {\n  return <div className="x">{a}</div>\n}',
  json: '{"a": [1, "b", true, null], "c": {"d": 2.5}}',
  bash: 'echo "hi $HOME" | grep -v x # c\nexport A=1\nif [ -f x ]; then ls -la; fi',
  python: 'def f(x: int) -> str:\n    """d"""\n    return str(x + 1)  # c\nclass A(B):\n    pass',
  diff: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b',
  markdown: '# T\n\n- a **b** `c`\n\n[d](e)',
  yaml: 'a: b\nc:\n  - 1\n  - "d" # e',
  rust: 'fn main() {\n    let x: u32 = 5;\n    println!("{}", x);\n}',
  go: 'package main\n\nfunc main() {\n\tfmt.Println("a", 1)\n}',
}

/** The most a line may take to tokenize; past it the line's rest is one token (shiki's default). */
const lineTimeLimitMs = 500

/** TextMate scopes → the palette's stand-in colours (the most specific rule that matches wins). */
const themeOf = (palette: typeof terminalPalette): ThemeRegistrationRaw => ({
  name: 'tangent-terminal',
  type: 'dark',
  settings: [
    { settings: { foreground: palette.plain } },
    { scope: ['comment', 'punctuation.definition.comment'], settings: { foreground: palette.dim } },
    {
      scope: ['string', 'punctuation.definition.string', 'constant.character.escape'],
      settings: { foreground: palette.green },
    },
    {
      scope: ['constant.numeric', 'constant.language', 'constant.other', 'support.constant'],
      settings: { foreground: palette.yellow },
    },
    {
      scope: ['keyword', 'storage', 'keyword.operator.new', 'keyword.control'],
      settings: { foreground: palette.magenta },
    },
    // Operators read better in the text's colour than as keywords.
    { scope: ['keyword.operator'], settings: { foreground: palette.plain } },
    {
      scope: ['entity.name.function', 'support.function', 'meta.function-call entity.name.function'],
      settings: { foreground: palette.blue },
    },
    {
      scope: [
        'entity.name.type',
        'entity.name.class',
        'support.type',
        'support.class',
        'entity.other.inherited-class',
      ],
      settings: { foreground: palette.cyan },
    },
    {
      scope: ['entity.name.tag', 'support.type.property-name', 'meta.object-literal.key'],
      settings: { foreground: palette.cyan },
    },
    { scope: ['variable.parameter'], settings: { foreground: palette.plain } },
    { scope: ['markup.inserted'], settings: { foreground: palette.green } },
    { scope: ['markup.deleted'], settings: { foreground: palette.red } },
    { scope: ['markup.changed', 'meta.diff.range'], settings: { foreground: palette.yellow } },
    { scope: ['meta.diff.header', 'markup.heading'], settings: { foreground: palette.blue } },
  ],
})

export interface Tokenizer {
  /** Loads a language's grammar (once). */
  load(language: CodeLanguage): Promise<void>
  /** `code` (lines joined by `\n`) as lines of tokens, each with its stand-in colour. */
  tokens(code: string, language: CodeLanguage): TokenizedLine[]
}

export async function createTokenizer(palette: typeof terminalPalette): Promise<Tokenizer> {
  const theme = themeOf(palette)
  const highlighter: HighlighterCore = await createHighlighterCore({
    themes: [theme],
    langs: [],
    engine: createJavaScriptRegexEngine(),
  })
  const loading = new Map<CodeLanguage, Promise<void>>()
  return {
    load(language) {
      let loaded = loading.get(language)
      if (loaded === undefined) {
        loaded = grammars[language]().then(async (module) => {
          await highlighter.loadLanguage(module.default)
          // In one step (~450 ms for TypeScript): this runs in shiki-worker.ts's thread, where
          // nothing else waits for it.
          highlighter.codeToTokensBase(warmUps[language], {
            lang: language,
            theme: theme.name!,
            tokenizeTimeLimit: 0,
          })
        })
        loading.set(language, loaded)
      }
      return loaded
    },
    tokens(code, language) {
      return highlighter
        .codeToTokensBase(code, { lang: language, theme: theme.name!, tokenizeTimeLimit: lineTimeLimitMs })
        .map((line) => line.map((token) => ({ content: token.content, color: token.color })))
    },
  }
}
