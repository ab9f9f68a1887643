// The request a compaction sends after the history (docs/architecture.md §12.4). Its own
// module so the demo model can recognise it without importing the compaction machinery.

/** The user message that asks the session's model for a summary of the history before it. */
export const compactionRequest = [
  'Summarise the conversation so far so that you can continue it without the earlier messages.',
  "Keep: the user's goals and requests; what was done (files read, written and changed, commands run and what they showed); decisions and why; what is still open.",
  'Be specific (paths, names, numbers, errors); leave out pleasantries. Answer with the summary only.',
].join('\n')

/** The system prompt of a compaction call. */
export const compactionSystemPrompt =
  'You summarise a conversation between a user and a coding agent so that the agent can continue the work from the summary alone.'
