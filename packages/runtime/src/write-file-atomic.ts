// Replace a small file atomically (write a temp file, then rename), with a file mode.
import fs from 'node:fs/promises'

export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  // node:crypto on first use: importing it costs start-up that a command that only reads never needs.
  const temp = `${file}.${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.tmp`
  await fs.writeFile(temp, text, { mode })
  try {
    await fs.chmod(temp, mode)
    await fs.rename(temp, file)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}
