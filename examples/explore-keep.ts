// Explore three ways to do one task, each checked by a command; keep the branch whose check
// passed; print the compare board. Runs offline on the demo model (`demo:scripted`), which turns
// `write FILE: TEXT` lines into real `write` tool calls.
//
//   npm run build && node examples/explore-keep.ts
//
// (Node 22.18 or later runs this TypeScript file as it is.) The sessions go to your data dir (TANGENT_HOME, as
// `tangent` uses it: see them with `tangent sessions`); the files to a new temporary folder.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Tangent } from '@tangent/sdk'

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-example-'))
const tangent = await Tangent.open({ cwd: project })
try {
  const session = await tangent.create({ model: 'demo:scripted', title: 'explore and keep' })
  // A first turn, its events printed as they are appended to the log.
  const turn = session.prompt('write answer.txt: draft')
  for await (const event of turn) console.log(`  ${event.seq} ${event.type}`)
  console.log(`first turn: ${(await turn.result).reason}`)

  // Three branches from that turn, each in its own worktree, the check run after each branch's turn.
  const exploration = await session.explore({
    branches: ['41', '42', '43'].map((answer) => ({ prompt: `write answer.txt: ${answer}` })),
    check: 'grep -qx 42 answer.txt',
  })
  const before = await tangent.board(exploration.branches)
  const best = before.branches.findIndex((branch) => branch.check?.ok === true)
  if (best < 0) throw new Error('No branch passed its check.')
  const kept = await exploration.branches[best]!.keep()
  console.log(`kept ${kept.kept}: ${kept.files.applied.join(', ')} written to ${project}`)

  const board = await tangent.board(exploration.branches)
  for (const branch of board.branches) {
    const label = branch.session.exploration?.label ?? '?'
    const check = branch.check === null ? 'no check' : branch.check.ok ? 'check passed' : 'check failed'
    const files = branch.files.map((file) => `${file.path} +${file.added} -${file.removed}`).join(', ')
    const state = branch.kept ? 'kept' : branch.session.archived ? 'archived' : ''
    console.log(`${label}  ${branch.session.id.slice(0, 8)}  ${check}  ${files}  ${state}`.trimEnd())
  }
  console.log(`answer.txt: ${fs.readFileSync(path.join(project, 'answer.txt'), 'utf8').trim()}`)
} finally {
  await tangent.close()
}
