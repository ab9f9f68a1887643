// The UUID another agent knows a exported Tangent session by (`claude`, `codex`, `pi` exports),
// derived from Tangent's id so exporting the same session again names the same file. node:crypto
// is taken on first use, not at import: the CLI loads the exporters' modules at start.

const ulidPattern = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i
const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

export function sha256Hex(text: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text, 'utf8').digest('hex')
}

/** 32 hex digits as a UUID of `version` (its version nibble and RFC 9562 variant bits set). */
export function uuidOf(hex: string, version: 7 | 8): string {
  const digits = hex.slice(0, 32).split('')
  digits[12] = String(version)
  digits[16] = ((Number.parseInt(digits[16]!, 16) & 0x3) | 0x8).toString(16)
  const text = digits.join('')
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20, 32)}`
}

/** A ULID's 128 bits as 32 hex digits (its 26 Crockford base32 digits, the first holding 3 bits). */
function ulidHex(ulid: string): string {
  let value = 0n
  for (const char of ulid.toUpperCase()) value = value * 32n + BigInt(crockford.indexOf(char))
  return value.toString(16).padStart(32, '0')
}

/**
 * The UUID of a Tangent session in another agent's files. A ULID (Tangent's ids) is a UUID's 128
 * bits with its creation time in the first 48, as in a version-7 UUID: decoded, with the version
 * and variant bits set. Any other id (a bundle's, say) gets a version-8 UUID hashed from it.
 */
export function exportedSessionUuid(sessionId: string): string {
  if (ulidPattern.test(sessionId)) return uuidOf(ulidHex(sessionId), 7)
  return uuidOf(sha256Hex(`tangent-session\u0000${sessionId}`), 8)
}
