// Shared by the prove-*.e2e.ts tests and the soak runner: a seeded random source, temp dirs,
// the built `tangent serve` as a child process, and WebSocket JSON-RPC clients to it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRpcClient } from '@tangent/protocol'
import { WebSocket } from 'ws'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const cliMain = path.join(repoRoot, 'packages', 'cli', 'dist', 'main.js')

/**
 * The seed of a randomized test: `TANGENT_PROVE_SEED` when set (to replay a failure), else the
 * test's fixed default. Printed, so every run says how to reproduce it.
 * @param {string} name
 * @param {number} fallback
 */
export function proveSeed(name, fallback) {
  const fromEnv = process.env.TANGENT_PROVE_SEED
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) >>> 0 : fallback >>> 0
  console.log(`[prove] ${name}: seed ${seed} (replay with TANGENT_PROVE_SEED=${seed})`)
  return seed
}

/**
 * How much a crash or fuzz proof does: `npm test` runs the short version (enough to exercise
 * every path it proves, in seconds), `npm run soak -- --only prove` the long one
 * (`TANGENT_PROVE_LONG=1`), which is the size these proofs had when they were written.
 * @template T
 * @param {T} short
 * @param {T} long
 * @returns {T}
 */
export function proveSize(short, long) {
  return process.env.TANGENT_PROVE_LONG === '1' ? long : short
}

/**
 * mulberry32: small, fast, good enough to pick test inputs reproducibly.
 * @param {number} seed
 */
export function seededRandom(seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    /** An integer in [low, high]. */
    int: (/** @type {number} */ low, /** @type {number} */ high) =>
      low + Math.floor(next() * (high - low + 1)),
    /** @template T @param {readonly T[]} items @returns {T} */
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (/** @type {number} */ p) => next() < p,
  }
}

/** @param {string} prefix */
export function tempDir(prefix = 'tangent-prove-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

/** The environment of a child Host: no provider keys, no colours, the given data dir. */
export function hostEnv(/** @type {string} */ home, /** @type {Record<string, string>} */ extra = {}) {
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, TANGENT_HOME: home, NO_COLOR: '1', ...extra }
  for (const key of [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'DEEPSEEK_API_KEY',
    'TANGENT_MODEL',
    'TANGENT_TOKEN',
  ])
    delete env[key]
  return env
}

/**
 * Starts the built CLI's `tangent serve --port 0 --json` and waits for its start line.
 * @param {{ home: string, cwd: string, env?: Record<string, string>, args?: string[] }} options
 */
export async function spawnServe(options) {
  const child = spawn(
    process.execPath,
    [cliMain, 'serve', '--port', '0', '--json', ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: hostEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  /** @type {{ url: string, port: number, token: string }} */
  const info = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const newline = stdout.indexOf('\n')
      if (newline >= 0) {
        try {
          resolve(JSON.parse(stdout.slice(0, newline)))
        } catch (error) {
          reject(new Error(`tangent serve printed ${JSON.stringify(stdout)}: ${String(error)}`))
        }
      }
    })
    void exited.then((/** @type {{ code: number | null }} */ exit) =>
      reject(new Error(`tangent serve exited (${exit.code}) before its start line: ${stderr.trim()}`)),
    )
  })
  return {
    child,
    info,
    pid: /** @type {number} */ (child.pid),
    stderr: () => stderr,
    exited,
    /** Sends a signal and resolves when the process is gone. */
    async kill(/** @type {NodeJS.Signals} */ signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/**
 * A JSON-RPC client over a real WebSocket to a Host, resolved once the socket is open.
 * @param {{ port: number, token: string }} info
 * @param {Record<string, string>} headers
 */
export async function connectRpc(info, headers = {}) {
  const socket = new WebSocket(`ws://127.0.0.1:${info.port}/rpc?token=${encodeURIComponent(info.token)}`, {
    headers,
  })
  const client = createRpcClient(
    /** @type {import('@tangent/protocol').SocketLike} */ (/** @type {unknown} */ (socket)),
  )
  await Promise.race([
    once(socket, 'open'),
    once(socket, 'error').then(([error]) => {
      throw error
    }),
  ])
  return client
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
