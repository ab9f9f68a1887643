// @tangent/files: File state: snapshots in a shadow git repo, restore, worktree forks, diffs.
export {}
