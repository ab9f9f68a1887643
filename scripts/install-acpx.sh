# Source or run: installs acpx (a third-party ACP client, used by test/e2e/acp.e2e.ts) from the npm
# registry into a cache folder, outside the project's lockfile: acpx pulls in @openclaw/fs-safe,
# whose per-platform optional packages the registry does not all have, and a lockfile written
# without them is one `npm ci` refuses. Prints nothing on success; the test finds it there.
# Override the folder with TANGENT_ACPX_DIR.
_tangent_acpx_version=0.19.1
_tangent_acpx_dir="${TANGENT_ACPX_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tangent/acpx-$_tangent_acpx_version}"
if [ ! -x "$_tangent_acpx_dir/node_modules/.bin/acpx" ]; then
  echo "install-acpx.sh: installing acpx@$_tangent_acpx_version from the npm registry into $_tangent_acpx_dir" >&2
  mkdir -p "$_tangent_acpx_dir"
  npm install --prefix "$_tangent_acpx_dir" --no-audit --no-fund --no-save --loglevel=error \
    "acpx@$_tangent_acpx_version" >&2
fi
