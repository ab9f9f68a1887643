# Source or run: installs the Codex CLI (@openai/codex, its native binary inside the package) from
# the npm registry into a cache folder, outside the project's lockfile. Used by
# test/fixtures/imports/codex/make-fixtures.mjs (the import tests read the fixtures it made) and by
# test/e2e/export-codex.e2e.ts, which resumes exported sessions with it (.ci/run installs it).
# Prints nothing on success. Override the folder with TANGENT_CODEX_DIR.
_tangent_codex_version=0.171.0
_tangent_codex_dir="${TANGENT_CODEX_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tangent/codex-$_tangent_codex_version}"
if [ ! -x "$_tangent_codex_dir/node_modules/.bin/codex" ]; then
  echo "install-codex.sh: installing @openai/codex@$_tangent_codex_version from the npm registry into $_tangent_codex_dir" >&2
  mkdir -p "$_tangent_codex_dir"
  npm install --prefix "$_tangent_codex_dir" --no-audit --no-fund --no-save --loglevel=error \
    "@openai/codex@$_tangent_codex_version" >&2
fi
