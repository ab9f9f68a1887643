// `task`: the model delegates a subtask to a subagent (docs/architecture.md §14.1). The agent
// only knows the delegate it was given; the runtime forks the running session through its last
// completed turn, runs the child's turn and answers with its final text. A refusal (depth or
// per-turn limit) is thrown, so the model reads it as an error result.
import { z } from 'zod'
import { defineTool } from './agent-tool.js'

export const TaskInput = z.object({
  prompt: z
    .string()
    .min(1)
    .describe('The whole subtask: the subagent sees the conversation before this turn, not this turn.'),
  files: z
    .enum(['shared', 'worktree'])
    .optional()
    .describe('shared (default): it works in this directory; worktree: in its own copy of the files'),
})
export type TaskInput = z.infer<typeof TaskInput>

/** What the runtime's subagent answered: its session, how its turn ended, its final text. */
export interface TaskAnswer {
  sessionId: string
  reason: string
  text: string
  error?: string
}

/** Runs one subagent for the calling session; throws when it may not be spawned. */
export type TaskDelegate = (request: {
  prompt: string
  files?: 'shared' | 'worktree'
  callId: string
  signal: AbortSignal
}) => Promise<TaskAnswer>

/** The longest answer returned to the parent; the rest is in the child's own transcript. */
export const maxTaskAnswerChars = 8000

export function createTaskTool(delegate: TaskDelegate) {
  return defineTool<TaskInput>({
    description:
      'Delegate a self-contained subtask to a subagent: a copy of this conversation up to the end of the previous turn ' +
      'that works with the same tools and returns its final answer. Say everything it needs in the prompt. ' +
      'Several task calls in one step run in parallel.',
    inputSchema: TaskInput,
    async run(input, { signal, callId }) {
      const answer = await delegate({
        prompt: input.prompt,
        ...(input.files !== undefined ? { files: input.files } : {}),
        callId: callId ?? '',
        signal,
      })
      const text =
        answer.text.length > maxTaskAnswerChars
          ? `${answer.text.slice(0, maxTaskAnswerChars)}\n[answer clipped: session ${answer.sessionId} holds all of it]`
          : answer.text
      if (answer.reason === 'completed') {
        return { output: `Subagent session ${answer.sessionId} answered:\n${text}` }
      }
      const why = answer.error ? `: ${answer.error}` : ''
      return {
        output: `Subagent session ${answer.sessionId} ended ${answer.reason}${why}${text ? `\n${text}` : ''}`,
        isError: true,
      }
    },
  })
}
