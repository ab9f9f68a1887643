// The ids of a `claude` export, all derived from Tangent's, so exporting a session again writes
// the same file (same session id, same record uuids) and overwrites its earlier export rather than
// adding one.
import { exportedSessionUuid, sha256Hex, uuidOf } from './export-ids.js'

/** The Claude Code session id of a Tangent session (export-ids.ts). */
export const claudeSessionIdOf = exportedSessionUuid

/** A record's uuid: stable for one session id and key (`<seq>:<block>`, …). */
export function claudeRecordUuid(claudeSessionId: string, key: string): string {
  return uuidOf(sha256Hex(`${claudeSessionId}\u0000${key}`), 8)
}

/** An assistant message's id, as the API names one (`msg_…`), stable like the record uuids. */
export function claudeMessageId(claudeSessionId: string, key: string): string {
  return `msg_tangent_${sha256Hex(`${claudeSessionId}\u0000message\u0000${key}`).slice(0, 24)}`
}

const apiToolUseId = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * A tool call id the Anthropic API takes (`^[a-zA-Z0-9_-]+$`): Tangent's when it is one, else
 * one hashed from it (the same for the call and its result). A hashed id starts `toolu_tangent_`,
 * which no kept id can collide with unless it was made to.
 */
export function claudeToolUseId(callId: string): string {
  if (apiToolUseId.test(callId)) return callId
  return `toolu_tangent_${sha256Hex(`tool-use\u0000${callId}`).slice(0, 32)}`
}
