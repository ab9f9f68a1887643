// Crash repair at open (docs/architecture.md §4): what the catalog found damaged is said, and a
// log that is only a torn creation is moved aside.
import type { Catalog } from './catalog.js'
import { readSessionLog } from './read-log.js'
import type { StoreWarning } from './store-errors.js'
import { type StorePaths, sessionLogFile, tornFile } from './store-paths.js'
import { cutTornTail } from './torn-tail.js'

/**
 * Says what the catalog found at open, and repairs what is only a torn creation: a log
 * without even a complete header line (a crash during creation) goes to .torn (a writer
 * only). Any other damaged log — another format version, a damaged header — is left as it
 * is, and said; so are files skipped and loops of parents.
 */
export async function reviewDamaged(
  catalog: Catalog,
  paths: StorePaths,
  readOnly: boolean,
  warn: (warning: StoreWarning) => void,
): Promise<void> {
  if (catalog.catalogProblem !== null)
    warn({
      kind: 'catalog-rebuilt',
      file: paths.catalogFile,
      message: `${paths.catalogFile} could not be used (${catalog.catalogProblem}): the catalog was rebuilt from the logs.`,
    })
  if (catalog.journalProblem !== null)
    warn({
      kind: 'catalog-rebuilt',
      file: paths.catalogJournalFile,
      message: `${catalog.journalProblem}: the changes it records from there on were not used, and the catalog was checked against the logs.`,
    })
  for (const [id, { file, why }] of catalog.skipped)
    warn({
      kind: 'skipped-file',
      file,
      message: `${file} is skipped: ${why}. The store does not read, write or follow it, and lists no session ${id}; replace it with the session's log file, or move it away.`,
    })
  for (const id of [...catalog.damaged]) {
    const file = sessionLogFile(paths, id)
    let problem = catalog.problems.get(id) ?? null
    let log: Awaited<ReturnType<typeof readSessionLog>> | null = null
    try {
      log = await readSessionLog(file)
    } catch (error) {
      problem = (error as Error).message
    }
    if (log && log.header === null) {
      if (readOnly) continue // the writer repairs it
      const torn = tornFile(paths, id)
      await cutTornTail(file, torn, 0)
      catalog.delete(id)
      warn({
        kind: 'moved-to-torn',
        file,
        message: `${file} had no complete header line (a creation that a crash interrupted): its bytes were moved to ${torn}.`,
      })
      continue
    }
    warn({
      kind: 'damaged-log',
      file,
      message: `${file} is not listed and is left as it is: ${problem ?? 'its header cannot be read'}`,
    })
  }
  for (const loop of catalog.loops)
    warn({
      kind: 'parent-loop',
      file: sessionLogFile(paths, loop[0]!),
      message: `Sessions ${[...loop, loop[0]].join(' → ')} name each other as parents (damaged headers): they are listed with parentLoop set, and neither they nor forks reading through them can load. Fix the parentSession in the header of one of them.`,
    })
}
