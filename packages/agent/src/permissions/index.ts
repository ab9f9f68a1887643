export * from './approvals.js'
export * from './bash-command.js'
export * from './policy.js'
