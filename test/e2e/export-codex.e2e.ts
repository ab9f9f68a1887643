// `tangent export --format codex` resumed by the REAL Codex CLI (issue 31, "Back out"): a branch made
// with the demo model (a write, a shell command, a read; texts on both sides; a fork, so half of
// its history is inherited) in a folder with a space and a non-ASCII letter is exported where Codex
// looks, `codex exec resume <uuid>` runs against a fake OpenAI Responses server on 127.0.0.1, and
// its first request must carry the branch's history in order, then the new prompt. The rollout
// imported back into Tangent gives the same texts.
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSandbox,
  removeSandbox,
  repoRoot,
  runToEnd,
  type Sandbox,
  tangent,
  tangentJson,
} from './cli-harness.js'

// Installed outside the lockfile by scripts/install-codex.sh (.ci/run runs it).
const codexBin = path.join(
  process.env.TANGENT_CODEX_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'tangent', 'codex-0.171.0'),
  'node_modules',
  '.bin',
  'codex',
)
const haveCodex = fs.existsSync(codexBin)
if (!haveCodex && process.env.CI)
  throw new Error(`Codex is not installed at ${codexBin}: run scripts/install-codex.sh`)

interface RunOutput {
  sessionId: string
  text: string
}
type Item = Record<string, unknown> & { type: string }

/** A Responses API server that records each request and answers every one with a short text. */
async function startFakeResponses() {
  const requests: { input: Item[]; model: string }[] = []
  const sse = (event: { type: string }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}')
        return
      }
      requests.push(JSON.parse(body))
      const id = `resp_${requests.length}`
      const item = {
        type: 'message',
        id: `msg_${requests.length}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Continued in Codex.', annotations: [] }],
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(sse({ type: 'response.created', response: { id, model: 'gpt-5.5' } } as never))
      res.write(sse({ type: 'response.output_item.added', output_index: 0, item } as never))
      res.write(sse({ type: 'response.output_item.done', output_index: 0, item } as never))
      const usage = { input_tokens: 10, output_tokens: 2, total_tokens: 12 }
      res.end(sse({ type: 'response.completed', response: { id, model: 'gpt-5.5', usage } } as never))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { requests, port: (server.address() as AddressInfo).port, close: () => server.close() }
}

async function runCodex(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { code, stdout, stderr } = await runToEnd(codexBin, args, { cwd, env, timeoutMs: 30_000 })
  if (code === 0) return stdout + stderr
  throw new Error(`codex ${args.join(' ')} exited ${code}\n${stdout}${stderr}`)
}

/** The texts of a request's message items of one role, Codex's own context left out. */
function textOf(item: Item): string {
  const content = Array.isArray(item.content) ? (item.content as { text?: string }[]) : []
  return content.map((part) => part.text ?? '').join('')
}

describe.skipIf(!haveCodex)('tangent export --format codex, resumed by the real Codex CLI', () => {
  let sandbox: Sandbox
  let codexHome: string
  let fake: Awaited<ReturnType<typeof startFakeResponses>>
  let branch: string
  beforeAll(async () => {
    sandbox = createSandbox()
    const root = path.dirname(sandbox.home)
    sandbox.cwd = path.join(root, 'work dir ü')
    fs.mkdirSync(sandbox.cwd)
    codexHome = path.join(root, 'codex home')
    fs.mkdirSync(codexHome)
    sandbox.env.CODEX_HOME = codexHome
    fake = await startFakeResponses()
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "http://127.0.0.1:${fake.port}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        '',
      ].join('\n'),
    )
    const first = await tangentJson<RunOutput>(sandbox, [
      'run',
      'write notes.txt: first line\nrun: cat notes.txt',
    ])
    const shown = await tangentJson<{ events: { seq: number; type: string }[] }>(sandbox, [
      'show',
      first.sessionId,
    ])
    const end = shown.events.find((event) => event.type === 'turn/end')!.seq
    await tangentJson<RunOutput>(sandbox, ['run', '--session', first.sessionId, 'on the parent only'])
    branch = (
      await tangentJson<{ session: { id: string } }>(sandbox, ['fork', first.sessionId, '--at', String(end)])
    ).session.id
    await tangentJson<RunOutput>(sandbox, ['run', '--session', branch, 'read notes.txt'])
  }, 60_000)
  afterAll(() => {
    fake?.close()
    if (sandbox) removeSandbox(sandbox)
  })

  it('codex exec resume sends the branch history in order, then the new prompt; import gives the texts back', async () => {
    const exported = await tangent(sandbox, ['export', branch, '--format', 'codex'])
    expect(exported.stderr).toBe('')
    expect(exported.code).toBe(0)
    const [file, hint] = exported.stdout.trim().split('\n')
    const uuid = /codex resume ([0-9a-f-]{36})$/.exec(hint!)![1]!
    expect(file!.startsWith(path.join(codexHome, 'sessions'))).toBe(true)
    expect(path.basename(file!)).toMatch(
      new RegExp(`^rollout-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-${uuid}\\.jsonl$`),
    )
    // Exporting again writes the same file (the id and the path are the session's)
    const again = await tangent(sandbox, ['export', branch, '--format', 'codex'])
    expect(again.stdout).toBe(exported.stdout)
    const exportedText = fs.readFileSync(file!, 'utf8')

    const env = {
      PATH: process.env.PATH,
      HOME: path.dirname(sandbox.home),
      CODEX_HOME: codexHome,
      FAKE_OPENAI_KEY: 'sk-fake',
    } as NodeJS.ProcessEnv
    const common = ['--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox']
    const output = await runCodex(['exec', 'resume', ...common, uuid, 'next'], sandbox.cwd, env)
    expect(output).toContain('Continued in Codex.')
    expect(fake.requests.length).toBe(1)

    // Codex's own context (its instructions, <environment_context>, skills) is left out: the rest is the branch
    const input = fake.requests[0]!.input.filter(
      (item) => !(item.type === 'message' && (item.role === 'developer' || /^\s*</.test(textOf(item)))),
    )
    const summary = input.map((item) =>
      item.type === 'message'
        ? `${String(item.role)}: ${textOf(item)}`
        : item.type.endsWith('_output')
          ? `${item.type} ${String(item.call_id)}: ${String(item.output)}`
          : `${item.type} ${String(item.call_id)} ${String(item.name)} ${String(item.arguments ?? item.input)}`,
    )
    expect(summary).toEqual([
      'user: write notes.txt: first line\nrun: cat notes.txt',
      'custom_tool_call demo-1-1 apply_patch *** Begin Patch\n*** Add File: notes.txt\n+first line\n*** End Patch\n',
      'function_call demo-1-2 exec_command {"cmd":"cat notes.txt"}',
      'custom_tool_call_output demo-1-1: Wrote notes.txt (11 bytes).',
      'function_call_output demo-1-2: first line\n[exit code 0]',
      expect.stringMatching(/^assistant: Wrote notes.txt \(11 bytes\)\.\nRan "cat notes.txt": exit 0\./),
      'user: read notes.txt',
      expect.stringMatching(/^function_call demo-\d+-1 read \{"path":"notes.txt"\}$/),
      expect.stringMatching(/^function_call_output demo-\d+-1: .*first line/s),
      expect.stringMatching(/^assistant: /),
      'user: next',
    ])
    expect(summary.join('\n')).not.toContain('on the parent only')

    // Back into Tangent (another data directory): the same user and assistant texts
    const other = createSandbox()
    try {
      other.cwd = sandbox.cwd
      const rollout = path.join(path.dirname(other.home), 'exported.jsonl')
      fs.writeFileSync(rollout, exportedText)
      const imported = await tangentJson<{ sessions: { id: string }[] }>(other, ['import', rollout])
      const back = await tangentJson<{
        events: { type: string; data: { content: { type: string; text?: string }[] } }[]
      }>(other, ['show', imported.sessions[0]!.id])
      const original = await tangentJson<typeof back>(sandbox, ['show', branch])
      const texts = (shown: typeof back) =>
        shown.events
          .filter((event) => event.type === 'user/message' || event.type === 'assistant/message')
          .map((event) =>
            event.data.content
              .filter((part) => part.type === 'text')
              .map((part) => part.text)
              .join(''),
          )
          .filter((text) => text !== '')
      expect(texts(back)).toEqual(texts(original))
      expect(texts(back).length).toBe(4)

      // Continued and forked in Codex, then brought back: Codex numbered on from the export, so
      // its fork names the point it forked at, and the fork comes in as a fork of the continued session
      await runCodex(['exec', 'fork', ...common, uuid, 'forked in Codex'], sandbox.cwd, env)
      const rollouts = fs
        .readdirSync(path.dirname(file!))
        .filter((name) => name !== path.basename(file!))
        .map((name) => path.join(path.dirname(file!), name))
      expect(rollouts).toHaveLength(1)
      const meta = JSON.parse(fs.readFileSync(rollouts[0]!, 'utf8').split('\n')[0]!).payload
      expect(meta.forked_from_id).toBe(uuid)
      expect(meta.forked_from_ordinal_exclusive).toBe(
        fs.readFileSync(file!, 'utf8').trim().split('\n').length,
      )
      const tree = await tangentJson<{ sessions: { id: string; parentSession?: string }[] }>(other, [
        'import',
        rollouts[0]!,
        file!,
      ])
      expect(tree.sessions).toHaveLength(2)
      expect(tree.sessions[1]!.parentSession).toBe(tree.sessions[0]!.id)
      const forkShown = await tangentJson<typeof back>(other, ['show', tree.sessions[1]!.id])
      const forkTexts = texts(forkShown)
      expect(forkTexts.slice(0, 4)).toEqual(texts(original))
      expect(forkTexts.slice(4)).toEqual([
        'next',
        'Continued in Codex.',
        'forked in Codex',
        'Continued in Codex.',
      ])
    } finally {
      removeSandbox(other)
    }
  }, 30_000)
})

describe('tangent import of a Codex fork given before its parent', () => {
  it('imports the parent first and makes the fork a Tangent fork of it', async () => {
    const sandbox = createSandbox()
    try {
      const fixtures = path.join(repoRoot, 'test', 'fixtures', 'imports', 'codex')
      const imported = await tangentJson<{
        sessions: { id: string; parentSession?: string; title?: string }[]
      }>(sandbox, [
        'import',
        '--cwd',
        sandbox.cwd,
        path.join(fixtures, 'forked.jsonl'),
        path.join(fixtures, 'resumed.jsonl'),
      ])
      expect(imported.sessions).toHaveLength(2)
      const [parent, fork] = imported.sessions
      expect(parent!.parentSession).toBeUndefined()
      expect(fork!.parentSession).toBe(parent!.id)
      const sessions = await tangentJson<{ id: string; parentSession: string | null }[]>(sandbox, [
        'sessions',
      ])
      expect(sessions.find((session) => session.id === fork!.id)?.parentSession).toBe(parent!.id)
    } finally {
      removeSandbox(sandbox)
    }
  })
})
