// The approval card under a tool call the permission policy asked about (docs/architecture.md
// §8, docs/protocol.md `session.answerPermission`): what will run, why it asks, and Allow once
// / Always allow / Deny. Nothing runs until someone answers. Keyboard: the card takes focus
// when it appears while focus is in an empty composer (or nowhere) — never from a composer that
// holds text being written —, Tab moves between its buttons, y / a / n answer while focus is on
// the card (not while typing the reason), and focus goes back to the composer (or the next
// waiting card) after the answer. For its first moments (`armDelayMs`) no key answers it: keys
// typed on before the card could be read are typing, and a character goes back to the composer.

import { alwaysScopeOf } from '@tangent/protocol'
import { type KeyboardEvent, useEffect, useRef, useState } from 'react'
import { composerInputId } from './composer.js'
import type { PermissionAnswer, ToolItem } from './transcript-model.js'
import { useStore } from './use-host.js'

type Decision = PermissionAnswer['decision']

/** How long a new card ignores keys: long enough to see it, short enough not to be in the way. */
const armDelayMs = 700

export function ApprovalCard({ sessionId, item }: { sessionId: string; item: ToolItem }) {
  const store = useStore()
  const card = useRef<HTMLFieldSetElement>(null)
  const first = useRef<HTMLButtonElement>(null)
  const [reason, setReason] = useState('')
  const sending = useRef(false)
  const subject = visibleText(subjectOf(item.input))
  const scope = alwaysScope(item.toolName, item.permission?.pattern ?? '')

  // Keys are answers only once the card has been on screen for a moment (`armed`).
  const [armed, setArmed] = useState(false)
  // Whether focus came here by itself (not by the person): typing then goes back to the composer.
  const tookFocus = useRef(false)

  // A card that appears while the person is at an empty composer (or focus is nowhere) takes
  // focus: the turn cannot go on without an answer. A composer holding text keeps it (the person
  // is writing; the card is announced and reached with Shift+Tab), as does focus elsewhere.
  useEffect(() => {
    const active = document.activeElement
    const composer = active?.id === composerInputId ? (active as HTMLTextAreaElement) : null
    const writing = composer !== null && composer.value.trim() !== ''
    if (!writing && (active === null || active === document.body || composer !== null)) {
      first.current?.focus()
      tookFocus.current = true
    }
    const timer = setTimeout(() => setArmed(true), armDelayMs)
    return () => clearTimeout(timer)
  }, [])

  async function answer(decision: Decision) {
    if (sending.current) return
    sending.current = true
    const why = decision === 'deny' ? reason.trim() : ''
    const done = await store.answerPermission(sessionId, item.callId, decision, why === '' ? undefined : why)
    sending.current = false
    if (done) focusAfterAnswer(card.current, item.callId)
  }

  function onKeyDown(event: KeyboardEvent<HTMLFieldSetElement>) {
    const target = event.target as HTMLElement
    if (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable) return
    if (event.ctrlKey || event.metaKey || event.altKey) return
    if (!armed) {
      // Typed on from the composer before the card could be read: not an answer. A character
      // goes back where it was meant (focus moves before the browser inserts it).
      if (tookFocus.current && event.key.length === 1) {
        tookFocus.current = false
        document.getElementById(composerInputId)?.focus()
        return
      }
      if (event.key === 'Enter' || event.key === ' ' || event.key.length === 1) event.preventDefault()
      return
    }
    const decision = shortcuts[event.key.toLowerCase()]
    if (!decision) return
    event.preventDefault()
    void answer(decision)
  }

  return (
    // A fieldset is a group named by its legend: "Approval needed: bash echo hi > a.txt".
    <fieldset
      ref={card}
      className="approval-card"
      data-testid="approval-card"
      data-call-id={item.callId}
      data-armed={armed}
      onKeyDown={onKeyDown}
    >
      <legend className="approval-title">
        Approval needed: <span className="approval-tool">{item.toolName}</span>{' '}
        <span className="visually-hidden">{subject}</span>
      </legend>
      {/* The whole call, folded and scrolled, never cut; focusable, so the keyboard scrolls it too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1) */}
      <pre className="approval-subject" data-testid="approval-subject" tabIndex={0}>
        {subject}
      </pre>
      <p className="approval-why" id={`approval-why-${item.callId}`}>
        Your permission settings ask before each <code>{item.toolName}</code> call. Nothing runs until you
        answer. “Always” allows {scope.sentence} for the rest of this session and for branches taken after
        this turn.
      </p>
      <div className="approval-actions">
        <button
          ref={first}
          type="button"
          className="button primary"
          data-testid="approval-once"
          aria-keyshortcuts="y"
          onClick={() => void answer('once')}
        >
          Allow once
        </button>
        <button
          type="button"
          className="button"
          data-testid="approval-always"
          aria-keyshortcuts="a"
          aria-describedby={`approval-why-${item.callId}`}
          onClick={() => void answer('always')}
        >
          Always allow <code>{scope.code}</code>
          {scope.after}
        </button>
        <button
          type="button"
          className="button deny"
          data-testid="approval-deny"
          aria-keyshortcuts="n"
          onClick={() => void answer('deny')}
        >
          Deny
        </button>
        <input
          className="approval-reason"
          data-testid="approval-reason"
          aria-label="Reason for denying, shown to the model (optional)"
          placeholder="Reason for Deny (optional)"
          maxLength={2000}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
              event.preventDefault()
              void answer('deny')
            }
          }}
        />
      </div>
      <p className="approval-keys" aria-hidden="true">
        Keys on the card: <kbd>y</kbd> allow once · <kbd>a</kbd> always · <kbd>n</kbd> deny
      </p>
    </fieldset>
  )
}

const shortcuts: Record<string, Decision | undefined> = { y: 'once', a: 'always', n: 'deny' }

/**
 * After an answer, focus goes to the next card still waiting, else back to the composer —
 * only when it was on this card (or fell to the body as the card went), never stolen.
 */
function focusAfterAnswer(card: HTMLElement | null, callId: string): void {
  const active = document.activeElement
  const wasHere = active === null || active === document.body || (card?.contains(active) ?? false)
  if (!wasHere) return
  const next = [...document.querySelectorAll<HTMLElement>('[data-testid="approval-card"]')].find(
    (other) => other.dataset.callId !== callId,
  )
  const target = next?.querySelector<HTMLElement>('button') ?? document.getElementById(composerInputId)
  target?.focus()
}

/** What will run: the command (bash) or the path (file tools), else the input as JSON. */
export function subjectOf(input: unknown): string {
  const record = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  if (typeof record.command === 'string') return record.command
  if (typeof record.path === 'string') return record.path
  return JSON.stringify(input, null, 2) ?? ''
}

/**
 * What an `always` answer keeps, from the event's `pattern` exactly: the button's words (`code`
 * shown as code, then `after`) and the sentence that explains it.
 */
export function alwaysScope(
  tool: string,
  pattern: string,
): { code: string; after: string; sentence: string } {
  const scope = alwaysScopeOf(tool, pattern)
  switch (scope.kind) {
    case 'everything':
      if (tool === 'bash') return { code: 'bash', after: ': every command', sentence: 'every bash command' }
      return fileTools.has(tool)
        ? { code: tool, after: ' anywhere here', sentence: `${tool} on any path in the session's folder` }
        : { code: tool, after: ' with any input', sentence: `${tool} with any input` }
    case 'exact-line':
      return {
        code: 'this exact command',
        after: '',
        sentence: `only this bash command, character for character: “${visibleText(scope.line)}”`,
      }
    case 'prefix': {
      const shown = visibleText(scope.prefix)
      return {
        code: shown,
        after: '',
        sentence: `every bash command that starts with “${shown}” (word by word)`,
      }
    }
    case 'paths': {
      const shown = visibleText(scope.glob)
      return { code: `${tool} ${shown}`, after: '', sentence: `${tool} on paths matching “${shown}”` }
    }
    case 'asked-every-time': {
      const shown = visibleText(scope.path)
      return {
        code: `${tool} ${shown}`,
        after: ' this once',
        sentence: `nothing more: writing “${shown}” (the repository's .git or the project's .tangent) asks every time`,
      }
    }
  }
}

const fileTools = new Set(['read', 'write', 'edit', 'list', 'grep'])

/**
 * Text shown exactly: control characters (but newline and tab), and the invisible and bidi
 * characters that could hide or reorder part of a command (Trojan Source), are written as
 * `\xHH` / `\uHHHH` escapes instead of being left to the browser.
 */
export function visibleText(text: string): string {
  return text.replace(invisible, (character) => {
    const code = character.charCodeAt(0)
    if (character === '\r') return '\\r'
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

const invisible =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g

/** A session rule as people read it: `bash touch`, or just `write` when it covers every path. */
export function ruleLabel(tool: string, pattern: string): string {
  return pattern === '' || pattern === '*' || pattern === '**' ? tool : `${tool} ${pattern}`
}

/** The quiet line on an answered call's row: "Allowed once", "Allowed always: bash echo", "Denied: …". */
export function answerText(answer: PermissionAnswer): string {
  const flag = answer.by === 'flag' ? ' (by a flag)' : ''
  if (answer.by === 'interrupted') return 'Not answered: the Host stopped'
  if (answer.by === 'hook') return `Denied by a preToolUse hook${answer.reason ? `: ${answer.reason}` : ''}`
  if (answer.decision === 'once') return `Allowed once${flag}`
  if (answer.decision === 'always') {
    const rule = answer.rule ? `: ${ruleLabel(answer.rule.tool, answer.rule.pattern)}` : ''
    return `Allowed always${rule}${flag}`
  }
  return `Denied${answer.reason ? `: ${answer.reason}` : ''}${flag}`
}
