// Syntax highlighting for code blocks in the transcript, loaded on first use (a dynamic import of
// this module) so the page's first script carries none of it: shiki's core with its JavaScript
// regex engine (no WebAssembly), two themes (light and dark, chosen by the page's colour scheme
// in CSS) and a small set of languages, each its own chunk fetched when a block first names it.
import type { HighlighterCore, ThemedToken } from 'shiki/core'
import { createHighlighterCore } from 'shiki/core'
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript'

type LanguageModule = () => Promise<{ default: unknown }>

/** The languages highlighted, by every name a fence may give them. Others stay plain. */
const languages: Record<string, LanguageModule> = {
  bash: () => import('shiki/langs/bash.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  typescript: () => import('shiki/langs/typescript.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
}

const aliases: Record<string, string> = {
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  yml: 'yaml',
  patch: 'diff',
  jsonc: 'json',
}

/** The language a fence's info string names, when it is one this module highlights. */
export function languageOf(info: string): string | null {
  const name = info.trim().toLowerCase()
  const language = aliases[name] ?? name
  return Object.hasOwn(languages, language) ? language : null
}

let highlighter: Promise<HighlighterCore> | null = null
const loading = new Map<string, Promise<void>>()

function core(): Promise<HighlighterCore> {
  highlighter ??= createHighlighterCore({
    themes: [import('shiki/themes/github-light-default.mjs'), import('shiki/themes/github-dark-default.mjs')],
    langs: [],
    engine: createJavaScriptRegexEngine(),
  })
  return highlighter
}

/** One token: its text and its colour in the light and the dark theme. */
export interface Token {
  readonly content: string
  readonly light?: string | undefined
  readonly dark?: string | undefined
}

/** `code` as lines of coloured tokens, or null when its language is not one highlighted here. */
export async function highlight(code: string, info: string): Promise<Token[][] | null> {
  const language = languageOf(info)
  if (language === null) return null
  const instance = await core()
  let loaded = loading.get(language)
  if (!loaded) {
    loaded = languages[language]!().then((module) =>
      instance.loadLanguage(module.default as Parameters<HighlighterCore['loadLanguage']>[0]),
    )
    loading.set(language, loaded)
  }
  await loaded
  const { tokens } = instance.codeToTokens(code, {
    lang: language,
    themes: { light: 'github-light-default', dark: 'github-dark-default' },
    defaultColor: false,
  })
  return tokens.map((line) => line.map(tokenOf))
}

function tokenOf(token: ThemedToken): Token {
  const style = (token.htmlStyle ?? {}) as Record<string, string>
  return { content: token.content, light: style['--shiki-light'], dark: style['--shiki-dark'] }
}
