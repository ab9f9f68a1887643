// What a bash command line does, read from its parse tree (docs/architecture.md §12.1), for the
// permission policy. Two readings:
// - `commands`: the line's simple commands as plain words, when the whole line is made only of
//   what an allow rule can vouch for — commands of literal words joined by `;` `&&` `||` `|`,
//   with at most fd duplications (`2>&1`) and `/dev/null` redirections. Anything else (an
//   expansion, a substitution, ANSI-C quoting, a redirection to a file, a comment, a here-doc, a
//   subshell, a wrapper such as `env` or `bash -c`, a syntax error…) makes the line `opaque`,
//   and no prefix rule or `always` answer allows it: matching a tree against an allow-list
//   fails closed where matching strings fails open.
// - `invocations`: every command the line may run, anywhere in it (inside `$(…)`, subshells,
//   `bash -c '…'`, `eval`), normalised as deny and ask rules match them (bash-invocation.ts).
import { bashGrammarLoaded, parseBashSyntax, type SyntaxNode } from './bash-grammar.js'
import { type Invocation, invocationsOf, programName } from './bash-invocation.js'
import { wordValue } from './bash-words.js'

export interface BashCommandLine {
  /** False when the grammar is not loaded (loadBashGrammar): nothing is known, the policy asks. */
  readonly parsed: boolean
  /** Why no prefix rule can vouch for the line, in words; null when it is plain. */
  readonly opaque: string | null
  /** A plain line's simple commands, each as its words after quote removal (empty when opaque). */
  readonly commands: readonly (readonly string[])[]
  /** Every command the line may run; a null program is one whose name is not known before it runs. */
  readonly invocations: readonly Invocation[]
}

/** What a syntax error (or a tree too deep, or a line too long) runs: a command no one can name. */
const brokenTree: Invocation = [null]

/** Trees deeper than this (`$($($(…)))` a thousand times) are not walked: not understood. */
const maxTreeDepth = 400

/**
 * Longer lines are not parsed (a megabyte takes seconds on the Host's one thread): not understood,
 * and running a command no one can name, so a deny rule makes them ask.
 */
export const maxAnalyzedLineLength = 256 * 1024

export function analyzeBashCommand(line: string): BashCommandLine {
  if (!bashGrammarLoaded())
    return {
      parsed: false,
      opaque: 'the bash grammar is not loaded',
      commands: [],
      invocations: [brokenTree],
    }
  if (line.length > maxAnalyzedLineLength)
    return { parsed: true, opaque: 'a line over 256 KB', commands: [], invocations: [brokenTree] }
  const tree = parseBashSyntax(line)
  if (!tree)
    return { parsed: true, opaque: 'a line the parser gave up on', commands: [], invocations: [brokenTree] }
  const invocations = invocationsIn(tree, 0)
  // tree-sitter takes a backslash-newline for a space, bash joins the words: read both ways.
  if (line.includes('\\\n')) {
    const joined = parseBashSyntax(line.replaceAll('\\\n', ''))
    for (const invocation of joined ? invocationsIn(joined, 0) : [brokenTree]) invocations.push(invocation)
  }
  const commands: string[][] = []
  const opaque =
    unusualCharacter(line) ??
    (invocations.includes(brokenTree) ? 'a syntax error' : null) ??
    plainReason(tree, commands, 0) ??
    (commands.length === 0 ? 'no command' : null)
  return { parsed: true, opaque, commands: opaque ? [] : commands, invocations }
}

function unusualCharacter(line: string): string | null {
  if (line.includes('\\\n')) return 'a line continuation'
  // Bash splits words on space, tab and newline only; what else looks like a space, a control
  // character or an invisible one (zero-width, bidi) is not for a rule to judge.
  if (/[^\P{Cc}\t\n]|\p{Cf}|[^\S \t\n]/u.test(line)) return 'a control character or an unusual space'
  return null
}

const separators = new Set([';', '&&', '||', '|', '|&'])

/** Why the tree is not plain (null when it is), collecting its simple commands. */
function plainReason(node: SyntaxNode, commands: string[][], depth: number): string | null {
  if (node.broken) return 'a syntax error'
  if (depth > maxTreeDepth) return 'nesting too deep'
  switch (node.type) {
    case 'program':
    case 'list':
    case 'pipeline':
      for (const child of node.children) {
        if (!child.named) {
          if (separators.has(child.type)) continue
          return child.type === '&' ? 'a background command (`&`)' : `\`${child.type}\``
        }
        const reason = plainReason(child, commands, depth + 1)
        if (reason) return reason
      }
      return null
    case 'redirected_statement': {
      const body = node.children.find((child) => child.field === 'body')
      if (!body) return 'a redirection without a command'
      for (const child of node.children) {
        if (child === body) continue
        if (harmlessRedirect(child)) continue
        return child.type === 'file_redirect'
          ? `a redirection (\`${clip(child.text)}\`)`
          : describeNode(child)
      }
      return plainReason(body, commands, depth + 1)
    }
    case 'command': {
      const words = plainWords(node)
      if (typeof words === 'string') return words
      const runs = runsOtherCommands(words)
      if (runs) return runs
      commands.push(words)
      return null
    }
    default:
      return describeNode(node)
  }
}

/** A command's words, or why it is not plain. */
function plainWords(node: SyntaxNode): string[] | string {
  const words: string[] = []
  for (const child of node.children) {
    if (child.type === 'variable_assignment') return `an environment assignment (\`${clip(child.text)}\`)`
    if (child.type === 'file_redirect' && harmlessRedirect(child)) continue
    const word =
      child.type === 'command_name' && child.children.length === 1
        ? child.children[0]!
        : child.field === 'argument'
          ? child
          : null
    if (!word) return describeNode(child)
    const value = wordValue(word, 'plain')
    if (value === null) return `a word that is not plain (\`${clip(word.text)}\`)`
    words.push(value)
  }
  return words
}

/** Programs whose arguments are commands: a prefix cannot vouch for what they run. */
const runners = new Set([
  ...['.', 'alias', 'builtin', 'busybox', 'caffeinate', 'chrt', 'command', 'coproc', 'doas', 'env', 'eval'],
  ...['exec', 'flock', 'ionice', 'nice', 'nohup', 'parallel', 'pkexec', 'runuser', 'setsid', 'source'],
  ...['stdbuf', 'su', 'sudo', 'taskset', 'time', 'timeout', 'trap', 'unbuffer', 'watch', 'xargs'],
])
const shellNames = new Set(['ash', 'bash', 'dash', 'fish', 'ksh', 'mksh', 'sh', 'yash', 'zsh'])

function runsOtherCommands(words: readonly string[]): string | null {
  const name = programName(words[0] ?? '')
  if (runners.has(name)) return `a command that runs others (\`${name}\`)`
  if (shellNames.has(name) && words.slice(1).some((word) => /^-[a-zA-Z]*c/.test(word)))
    return `a script (\`${name} -c\`)`
  if (name === 'find' && words.some((word) => /^-(?:exec|execdir|ok|okdir)$/.test(word)))
    return 'a command that runs others (`find -exec`)'
  return null
}

/** `2>&1`, `>&2`, `>&-`, `>/dev/null`, `2>>/dev/null`, `</dev/null`: nothing read or written but what the command had. */
function harmlessRedirect(node: SyntaxNode): boolean {
  if (node.type !== 'file_redirect') return false
  let operator: string | undefined
  let destination: SyntaxNode | undefined
  for (const child of node.children) {
    if (child.broken) return false
    if (child.type === 'file_descriptor') {
      if (!/^\d+$/.test(child.text)) return false
    } else if (!child.named) {
      if (operator !== undefined) return false
      operator = child.type
    } else {
      if (destination !== undefined) return false
      destination = child
    }
  }
  if (operator === '>&-' || operator === '<&-') return destination === undefined
  if (!destination) return false
  if (operator === '>&' || operator === '<&')
    return (destination.type === 'number' && /^\d+$/.test(destination.text)) || destination.text === '-'
  if (operator && ['>', '>>', '&>', '&>>', '>|', '<'].includes(operator))
    return wordValue(destination, 'plain') === '/dev/null'
  return false
}

const nodeNames: Record<string, string> = {
  ansi_c_string: "ANSI-C quoting (`$'…'`)",
  command_substitution: 'a command substitution',
  comment: 'a comment',
  compound_statement: 'a command group (`{ …; }`)',
  declaration_command: 'a declaration',
  expansion: 'a parameter expansion',
  function_definition: 'a function definition',
  heredoc_redirect: 'a here-document',
  herestring_redirect: 'a here-string',
  process_substitution: 'a process substitution',
  simple_expansion: 'a variable expansion',
  subshell: 'a subshell',
  translated_string: 'locale quoting (`$"…"`)',
  variable_assignment: 'a variable assignment',
}

function describeNode(node: SyntaxNode): string {
  return nodeNames[node.type] ?? `\`${clip(node.text)}\``
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ')
  return line.length > 40 ? `${line.slice(0, 39)}…` : line
}

/** An unescaped `$(`, backtick, `<(` or `>(`. */
const hiddenSubstitution = /(?:^|[^\\])(?:\\\\)*(?:\$\(|`|[<>]\()/

/** Every command in the tree, normalised; a syntax error is a command no one can name. */
function invocationsIn(root: SyntaxNode, depth: number): Invocation[] {
  const found: Invocation[] = []
  const stack: { node: SyntaxNode; level: number }[] = [{ node: root, level: 0 }]
  while (stack.length > 0) {
    const { node, level } = stack.pop()!
    if (node.broken || level > maxTreeDepth) {
      found.push(brokenTree)
      continue
    }
    if (node.type === 'command') {
      for (const invocation of invocationsOf(staticWords(node), parseScript, depth)) found.push(invocation)
      // `PAGER='rm x' git log`: what an assignment makes the command run is unknown (isAssignment).
      if (node.children.some((child) => child.type === 'variable_assignment')) found.push([null])
    }
    // A substitution the grammar left inside a word's text (it parses them as nodes) would still run: unknown.
    else if ((node.type === 'word' || node.type === 'string_content') && hiddenSubstitution.test(node.text))
      found.push(brokenTree)
    for (const child of node.children) stack.push({ node: child, level: level + 1 })
  }
  return found
}

/** A script in an argument (`bash -c '…'`, `eval …`), parsed as a line of its own. */
function parseScript(script: string, depth: number): Invocation[] {
  const tree = parseBashSyntax(script)
  return tree ? invocationsIn(tree, depth) : [[null]]
}

/** A command's words as deny rules see them: environment assignments and redirections left out. */
function staticWords(node: SyntaxNode): (string | null)[] {
  const words: (string | null)[] = []
  const children = node.children
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!
    if (child.type === 'variable_assignment' || child.type.endsWith('_redirect')) continue
    if (child.type === 'command_name') {
      words.push(child.children.length === 1 ? wordValue(child.children[0]!, 'static') : null)
      continue
    }
    // `$"…"` as an argument comes as `$` then the string: one word, its text unknown.
    if (child.type === '$' && !child.named) {
      if (children[index + 1]?.type === 'string') index++
      words.push(null)
      continue
    }
    words.push(wordValue(child, 'static'))
  }
  return words
}
