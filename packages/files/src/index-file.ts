// Reads git's index file format (versions 2–4, SHA-1) as git's read-cache.c does: each entry's
// fixed fields, its flags and its path (its length from the flags, as git takes it; version 4's
// paths prefix-compressed against the previous one), then the extensions. Used where a git
// process that only reads the index would cost more than the read: a seed's scan of the
// project's index (seed.ts), and which shared index a split index names (shared-index.ts).
// Anything this reader does not know as git would read it gives undefined, and the caller asks
// git instead.

const sha1Bytes = 20
/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the object id, flags. */
const fixedBytes = 40 + sha1Bytes + 2
const nameMask = 0x0fff
const extendedFlag = 0x4000
const assumeValidFlag = 0x8000
const intentToAddFlag = 0x2000
const skipWorktreeFlag = 0x4000
/** The extended flags git knows; any other bit makes git stop. */
const knownExtendedFlags = intentToAddFlag | skipWorktreeFlag

/**
 * One entry, as the visit sees it. One object is reused for every entry: `name` holds the path in
 * its first `nameLength` bytes, valid only during the visit.
 */
export interface IndexEntry {
  name: Buffer
  nameLength: number
  mode: number
  stage: number
  assumeValid: boolean
  skipWorktree: boolean
}

export interface IndexExtension {
  signature: string
  /** Offset of the extension's data in the file. */
  start: number
  size: number
}

export interface IndexLayout {
  version: number
  entries: number
  extensions: IndexExtension[]
}

/** Entries read between two turns of the event loop (a 100,000-entry index: ~50 turns). */
const entriesPerSlice = 2048

/**
 * Walks an index file's entries (calling `visit` for each, when given) and lists its extensions.
 * Undefined when the bytes are not an index this reader takes as git would: no `DIRC` header, a
 * version other than 2–4, an entry or extension running past the end, an extended flag git does
 * not know, a version 4 path that strips more than the previous one had. The trailing checksum
 * is not checked (the caller does, when it matters).
 */
export async function readIndex(
  bytes: Buffer,
  visit?: (entry: IndexEntry) => void,
): Promise<IndexLayout | undefined> {
  if (bytes.length < 12 + sha1Bytes || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined
  const version = bytes.readUInt32BE(4)
  if (version < 2 || version > 4) return undefined
  const count = bytes.readUInt32BE(8)
  const end = bytes.length - sha1Bytes
  const entry: IndexEntry = {
    name: Buffer.alloc(4096),
    nameLength: 0,
    mode: 0,
    stage: 0,
    assumeValid: false,
    skipWorktree: false,
  }
  let offset = 12
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % entriesPerSlice === 0) await new Promise((resolve) => setImmediate(resolve))
    if (offset + fixedBytes > end) return undefined
    const entryStart = offset
    const flags = bytes.readUInt16BE(offset + fixedBytes - 2)
    let nameStart = offset + fixedBytes
    let extended = 0
    if ((flags & extendedFlag) !== 0) {
      if (nameStart + 2 > end) return undefined
      extended = bytes.readUInt16BE(nameStart)
      if ((extended & ~knownExtendedFlags) !== 0) return undefined
      nameStart += 2
    }
    let length = flags & nameMask
    let keep = 0
    if (version === 4) {
      // How many bytes of the previous path to drop (git's varint), then the rest and a NUL.
      let at = nameStart
      if (at >= end) return undefined
      let byte = bytes[at++]!
      let strip = byte & 0x7f
      while ((byte & 0x80) !== 0) {
        if (at >= end || strip > 0xffffffff) return undefined
        byte = bytes[at++]!
        strip = (strip + 1) * 128 + (byte & 0x7f)
      }
      if (strip > entry.nameLength) return undefined
      keep = entry.nameLength - strip
      nameStart = at
      if (length === nameMask) {
        const nul = bytes.indexOf(0, nameStart)
        if (nul < 0 || nul >= end) return undefined
        length = keep + (nul - nameStart)
      }
      const suffix = length - keep
      if (suffix < 0 || nameStart + suffix + 1 > end) return undefined
      if (visit) copyName(entry, bytes, nameStart, keep, suffix)
      entry.nameLength = length
      offset = nameStart + suffix + 1
    } else {
      if (length === nameMask) {
        const nul = bytes.indexOf(0, nameStart)
        if (nul < 0 || nul >= end) return undefined
        length = nul - nameStart
      }
      // The entry is padded with NULs to a multiple of eight bytes (git's ondisk_ce_size).
      const size = (nameStart - offset + length + 8) & ~7
      if (offset + size > end) return undefined
      if (visit) copyName(entry, bytes, nameStart, 0, length)
      entry.nameLength = length
      offset += size
    }
    if (visit) {
      entry.mode = bytes.readUInt32BE(entryStart + 24)
      entry.stage = (flags >> 12) & 3
      entry.assumeValid = (flags & assumeValidFlag) !== 0
      entry.skipWorktree = (extended & skipWorktreeFlag) !== 0
      visit(entry)
    }
  }
  const extensions: IndexExtension[] = []
  while (offset + 8 <= end) {
    const size = bytes.readUInt32BE(offset + 4)
    if (offset + 8 + size > end) return undefined
    extensions.push({ signature: bytes.toString('latin1', offset, offset + 4), start: offset + 8, size })
    offset += 8 + size
  }
  return offset === end ? { version, entries: count, extensions } : undefined
}

/** Puts `suffix` bytes from `at` after the first `keep` bytes of the entry's name buffer. */
function copyName(entry: IndexEntry, bytes: Buffer, at: number, keep: number, suffix: number): void {
  if (keep + suffix > entry.name.length) {
    const grown = Buffer.alloc(Math.max(entry.name.length * 2, keep + suffix))
    entry.name.copy(grown, 0, 0, keep)
    entry.name = grown
  }
  bytes.copy(entry.name, keep, at, at + suffix)
}
