// Whether this Node is one Tangent supports: the root package.json's `engines` (a test keeps the
// two equal). An older one is reported, not refused: `tangent doctor` lists it as a problem and
// every other command warns once on stderr (bin.ts), each with how to get a current Node.
// No imports: bin.ts checks before it loads anything else.

/** The oldest Node Tangent supports, as in package.json's `engines` (`>=22.12`). */
export const minimumNode = { major: 22, minor: 12 } as const

/** How to get a current Node, for a message that has just said this one is too old. */
export const currentNodeAdvice =
  'get a current one: in a clone of Tangent, `. scripts/use-node.sh` (Node 24 from the npm registry, for that shell); elsewhere `nvm install 24` or https://nodejs.org'

/** True when `version` (`20.20.2`, as in process.versions.node) is older than Tangent supports. */
export function isOlderThanSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0)
  return major < minimumNode.major || (major === minimumNode.major && minor < minimumNode.minor)
}

/** What is wrong with this Node and what to do, or null when it is supported. */
export function oldNodeProblem(version: string): string | null {
  if (!isOlderThanSupported(version)) return null
  return `Node v${version} is older than Tangent supports (>= ${minimumNode.major}.${minimumNode.minor}; it is developed and tested on Node 24 LTS): some things fail on it, \`npm test\` among them; ${currentNodeAdvice}.`
}
