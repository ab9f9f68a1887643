// The provider transcript of a log: core's `toModelMessages`, plus the reasoning metadata
// (Anthropic thinking signatures) the agent kept on logged parts, passed back as
// providerOptions so a tool-use continuation with thinking enabled is accepted.

import { type AssistantMessageData, type SessionEvent, toModelMessages } from '@tangent/core'
import type { ModelMessage } from 'ai'
import type { LoggedAssistantPart } from './step-content.js'

export function replayMessages(events: readonly SessionEvent[]): ModelMessage[] {
  const messages = toModelMessages(events)
  // Replay emits one assistant message per non-empty assistant/message, parts in order.
  const logged = events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => (event.data as AssistantMessageData).content as LoggedAssistantPart[])
    .filter((content) => content.length > 0)
  const replayed = messages.filter((message) => message.role === 'assistant')
  if (logged.length !== replayed.length) return messages
  replayed.forEach((message, index) => {
    if (typeof message.content === 'string') return
    const parts = logged[index]!
    message.content = message.content.map((part, at) => {
      const metadata = parts[at]?.providerMetadata
      return metadata && parts[at]!.type === part.type ? { ...part, providerOptions: metadata } : part
    }) as typeof message.content
  })
  return messages
}
