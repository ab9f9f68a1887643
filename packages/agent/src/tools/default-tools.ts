// The agent's standard tool set: read, write, edit, list, grep, bash.
import type { AgentToolSet } from './agent-tool.js'
import { type BashToolOptions, createBashTool } from './bash.js'
import { editTool } from './edit.js'
import { grepTool } from './grep.js'
import { listTool } from './list.js'
import { readTool } from './read.js'
import { writeTool } from './write.js'

export function createDefaultTools(options: { bash?: BashToolOptions } = {}): AgentToolSet {
  return {
    read: readTool,
    write: writeTool,
    edit: editTool,
    list: listTool,
    grep: grepTool,
    bash: createBashTool(options.bash),
  }
}
