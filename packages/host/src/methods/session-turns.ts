// session.prompt, session.abort and session.setModel: the calls that go through a
// session's live agent (created on first use).
import { assertIdle, type HostContext, liveSession, sessionNotFound, summarize } from '../host-context.js'
import type { MethodHandlers } from '../rpc-router.js'

export function sessionTurnMethods(
  context: HostContext,
): Pick<MethodHandlers, 'session.prompt' | 'session.abort' | 'session.setModel'> {
  const { persistence, agents } = context
  return {
    'session.prompt': async (params) => {
      const session = await liveSession(context, params.sessionId)
      assertIdle(session, 'send another prompt')
      // Resolves when the turn ends (also when it ends aborted or with an error).
      return agents.prompt(session, params.text)
    },

    'session.abort': async (params) => {
      const agent = agents.get(params.sessionId)
      if (agent) return { aborted: agent.abort() }
      if (!persistence.store.get(params.sessionId) && !(await persistence.get(params.sessionId))) {
        throw sessionNotFound(params.sessionId)
      }
      return { aborted: false }
    },

    'session.setModel': async (params) => {
      const session = await liveSession(context, params.sessionId)
      assertIdle(session, 'change its model')
      agents.obtain(session).setModel(params.model, params.reasoningEffort)
      await persistence.flush(session.id)
      return summarize(context, session.id)
    },
  }
}
