export * from './approvals.js'
export * from './bash-command.js'
export * from './policy.js'
export * from './real-path-check.js'
