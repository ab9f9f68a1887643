// A small file system for disk-full tests: a tmpfs mounted for the test (needs root on Linux),
// and a filler file that takes every free byte. Used by test/e2e/prove-store-disk-full.e2e.ts
// and the disk-full soak (disk-full-driver.mjs).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'

/**
 * Mounts a tmpfs of `size` (`1m`, `16m`) on the existing directory `mountPoint`; false when this
 * process may not (not Linux, not root, no mount).
 * @param {string} mountPoint
 * @param {string} size
 */
export function mountSmallDisk(mountPoint, size) {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** @param {string} mountPoint */
export function unmountSmallDisk(mountPoint) {
  execFileSync('umount', ['-l', mountPoint])
}

/**
 * Appends to `file` until the file system is full (ENOSPC); returns the file's size.
 * @param {string} file
 */
export function fillDisk(file) {
  const fd = fs.openSync(file, 'a')
  try {
    const chunk = Buffer.alloc(4096, 1)
    for (;;) fs.writeSync(fd, chunk)
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOSPC') throw error
  } finally {
    fs.closeSync(fd)
  }
  return fs.statSync(file).size
}
