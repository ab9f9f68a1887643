// Builds the browser UI into packages/web/dist, which the Host serves at `/`.
// Relative asset paths so the page works whatever URL prefix the Host serves it under.
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // No [PLUGIN_TIMINGS] report: it is how long plugins took, not something to fix, and a cold
    // build on a busy machine (the CSS transform) printed it on `npm start`.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
})
