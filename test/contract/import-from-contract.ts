// `session.importFrom` (a tool's sessions from where it keeps them under the runtime's home) and a
// file larger than one Host message through `session.import` (uploaded in pieces over a Host:
// host-api.ts). Run by session-contract.ts against every front-end and store, with a fake home
// holding copies of the real tools' files (test/fixtures/imports) where each tool keeps them.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { maxMessageBytes } from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'

export interface ImportFromFixture {
  api: SessionApi
  /** Where `~` points for the runtime behind the front-end. */
  homeDir: string
}

const fixtures = path.resolve(import.meta.dirname, '../fixtures/imports')
/** The folder each fixture recorded, replaced by a folder of this test. */
const recorded = {
  claude: '/tmp/tangent-claude-fixtures-2.1.332/project',
  codex: '/tmp/tangent-codex-fixtures-UQsZNu/work',
  pi: '/home/ada/project',
}
const claudeSessionId = '11111111-1111-4111-8111-111111111111'

/** A fixture's text, its recorded folder made `folder`. */
function fixture(tool: keyof typeof recorded, name: string, folder: string): string {
  return fs.readFileSync(path.join(fixtures, tool, name), 'utf8').replaceAll(recorded[tool], folder)
}

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

export function importFromContract(
  fixtureOf: () => ImportFromFixture,
  tempDir: (prefix?: string) => string,
): void {
  const api = () => fixtureOf().api
  const claudeDir = (folder: string) =>
    path.join(fixtureOf().homeDir, '.claude', 'projects', folder.replace(/[^a-zA-Z0-9]/g, '-'))

  describe('session.importFrom', () => {
    it("imports a folder's Claude Code sessions from ~/.claude; a bad file is a problem, the rest goes in; again creates nothing", async () => {
      const project = tempDir('tangent-from-claude-')
      write(
        path.join(claudeDir(project), `${claudeSessionId}.jsonl`),
        fixture('claude', 'tools-branch-compact.jsonl', project),
      )
      const bad = write(
        path.join(claudeDir(project), 'aaaaaaaa-0000-4000-8000-000000000000.jsonl'),
        'not json\n',
      )
      // Another folder's session is not this folder's.
      const other = tempDir('tangent-from-other-')
      write(
        path.join(claudeDir(other), `${claudeSessionId}.jsonl`),
        fixture('claude', 'tools-branch-compact.jsonl', other),
      )

      const result = await api().call('session.importFrom', { tool: 'claude', cwd: project })
      expect(result.files).toBe(2)
      // The rewind branch is a fork of the main session.
      expect(result.sessions.map((session) => [session.source, session.status])).toEqual([
        ['claude', 'created'],
        ['claude', 'created'],
      ])
      expect(result.sessions[1]!.parentSession).toBe(result.sessions[0]!.id)
      expect(result.problems).toEqual([expect.objectContaining({ file: bad })])
      expect(result.problems[0]!.message).toMatch(/not a file Tangent knows how to import/)
      const main = await api().call('session.get', { sessionId: result.sessions[0]!.id })
      expect(main.session.cwd).toBe(fs.realpathSync(project))
      expect(main.events.some((event) => event.type === 'user/message')).toBe(true)

      const again = await api().call('session.importFrom', { tool: 'claude', cwd: project })
      expect(again.sessions.map((session) => session.status)).toEqual(['existing', 'existing'])
      expect(again.sessions.map((session) => session.id)).toEqual(
        result.sessions.map((session) => session.id),
      )
    })

    it('imports Codex rollouts from ~/.codex/sessions (all folders) and pi sessions from ~/.pi/agent/sessions', async () => {
      const project = tempDir('tangent-from-tools-')
      const home = fixtureOf().homeDir
      write(
        path.join(
          home,
          '.codex',
          'sessions',
          '2026',
          '12',
          '04',
          'rollout-2026-12-04T02-54-18-compacted.jsonl',
        ),
        fixture('codex', 'compacted.jsonl', project),
      )
      const codex = await api().call('session.importFrom', { tool: 'codex', all: true })
      expect(codex.files).toBe(1)
      expect(codex.problems).toEqual([])
      expect(codex.sessions.length).toBeGreaterThanOrEqual(1)
      expect(
        codex.sessions.every((session) => session.source === 'codex' && session.status === 'created'),
      ).toBe(true)
      // The same file by its folder: already here.
      const byFolder = await api().call('session.importFrom', { tool: 'codex', cwd: project })
      expect(byFolder.sessions.map((session) => session.status)).toEqual(codex.sessions.map(() => 'existing'))

      const piFolder = `--${project.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`
      write(
        path.join(home, '.pi', 'agent', 'sessions', piFolder, '2026-12-04T02-44-47-678Z_branched.jsonl'),
        fixture('pi', 'branched.jsonl', project),
      )
      const pi = await api().call('session.importFrom', { tool: 'pi', cwd: project })
      expect(pi.files).toBe(1)
      expect(pi.problems).toEqual([])
      // pi's tree has branches: forks of its main session.
      expect(pi.sessions.length).toBeGreaterThan(1)
      expect(pi.sessions.slice(1).every((session) => session.parentSession !== undefined)).toBe(true)
      for (const session of [...codex.sessions, ...pi.sessions])
        expect((await api().call('session.get', { sessionId: session.id })).session.cwd).toBe(
          fs.realpathSync(project),
        )
    })

    it('a folder no tool ran in has nothing; hostile params are refused', async () => {
      const empty = tempDir('tangent-from-empty-')
      expect(await api().call('session.importFrom', { tool: 'pi', cwd: empty })).toEqual({
        sessions: [],
        problems: [],
        files: 0,
      })
      const refused = async (params: unknown) => {
        const error = await api()
          .call('session.importFrom', params as never)
          .catch((caught: unknown) => caught)
        expect(TangentError.hasCode(error, 'invalid-params'), String(error)).toBe(true)
      }
      await refused({ tool: 'claude' })
      await refused({ tool: 'claude', cwd: 'relative/folder' })
      await refused({ tool: 'claude', cwd: empty, all: true })
      await refused({ tool: 'vim', all: true })
      await refused({ tool: 'claude', cwd: '/tmp/a\0b' })
    })
  })

  describe('session.import of a file larger than one Host message', () => {
    it('a 1.5 MiB Claude Code session (non-ASCII text too) goes in whole; the same again creates nothing', async () => {
      const project = tempDir('tangent-big-claude-')
      // A first prompt of 1.5 MiB: ASCII, accents, an emoji (a surrogate pair) and quotes to escape.
      const long = `${'forks and branches é “quoted” 🌳 \\ "x" '.repeat(40_000)}end`
      const lines = fixture('claude', 'tools-branch-compact.jsonl', project).split('\n')
      const first = lines.findIndex((line) => line.includes('"type":"user"'))
      const record = JSON.parse(lines[first]!) as { message: { content: string } }
      record.message.content = long
      lines[first] = JSON.stringify(record)
      const content = lines.join('\n')
      expect(Buffer.byteLength(JSON.stringify(content))).toBeGreaterThan(maxMessageBytes * 1.4)

      const result = await api().call('session.import', { content, fileName: `${claudeSessionId}.jsonl` })
      expect(result.sessions.map((session) => session.status)).toEqual(['created', 'created'])
      const { events } = await api().call('session.get', { sessionId: result.sessions[0]!.id })
      const user = events.find((event) => event.type === 'user/message')
      expect(user).toBeDefined()
      const parts = (user!.data as { content: { type: string; text?: string }[] }).content
      expect(parts.map((part) => part.text ?? '').join('')).toBe(long)
      const again = await api().call('session.import', { content, fileName: `${claudeSessionId}.jsonl` })
      expect(again.sessions.map((session) => session.status)).toEqual(['existing', 'existing'])
    })

    it('an upload id this front-end never made is refused (upload-not-found); so is content with an upload id', async () => {
      const error = await api()
        .call('session.import', { uploadId: 'no-such-upload' })
        .catch((caught: unknown) => caught)
      expect(TangentError.hasCode(error, 'upload-not-found'), String(error)).toBe(true)
      const both = await api()
        .call('session.import', { uploadId: 'x', content: 'y' })
        .catch((caught: unknown) => caught)
      expect(TangentError.hasCode(both, 'invalid-params'), String(both)).toBe(true)
    })
  })
}
