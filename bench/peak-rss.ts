// Preloaded (`node --import`) into a process the import benchmark runs: when the process exits,
// its peak resident set (getrusage's ru_maxrss, in bytes) goes to the file TANGENT_BENCH_PEAK_RSS
// names. The peak of a whole process, counted by the kernel: nothing sampled, nothing missed.
import fs from 'node:fs'

const out = process.env.TANGENT_BENCH_PEAK_RSS
if (out)
  process.on('exit', () => {
    fs.writeFileSync(out, String(process.resourceUsage().maxRSS * 1024))
  })
