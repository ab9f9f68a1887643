# Source or run: installs Claude Code (@anthropic-ai/claude-code, its native binary inside the
# package) from the npm registry into a cache folder, outside the project's lockfile. The test of
# `tangent export --format claude` (test/e2e/export-claude.e2e.ts) resumes an export with it against
# a fake Anthropic server on 127.0.0.1 (test/fixtures/imports/claude/make-fixtures.mjs installs into
# the same folder). Prints nothing on success. Override the folder with TANGENT_CLAUDE_CODE_DIR.
_tangent_claude_code_version=2.1.332
_tangent_claude_code_dir="${TANGENT_CLAUDE_CODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tangent/claude-code-$_tangent_claude_code_version}"
if [ ! -x "$_tangent_claude_code_dir/node_modules/.bin/claude" ]; then
  echo "install-claude-code.sh: installing @anthropic-ai/claude-code@$_tangent_claude_code_version from the npm registry into $_tangent_claude_code_dir" >&2
  mkdir -p "$_tangent_claude_code_dir"
  npm install --prefix "$_tangent_claude_code_dir" --no-audit --no-fund --no-save --loglevel=error \
    "@anthropic-ai/claude-code@$_tangent_claude_code_version" >&2
fi
