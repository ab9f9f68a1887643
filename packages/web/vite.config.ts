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
    // The Markdown renderer (react-markdown, remark, micromark and their kin) is a chunk of its
    // own: loaded with the page, cached apart from the app's code. Highlighting (shiki) is
    // loaded on first use (highlight.ts).
    rolldownOptions: {
      checks: { bundlerTimings: false },
      output: {
        codeSplitting: {
          groups: [
            {
              name: 'markdown-renderer',
              test: /node_modules[\\/](react-markdown|remark-|rehype-|remend|micromark|mdast-|hast-|unist-|unified|vfile|property-information|markdown-table|decode-named|character-|ccount|comma-|space-|devlop|bail|trough|is-plain-obj|zwitch|longest-streak|html-url|estree-|style-to|inline-style|trim-lines|extend|escape-string)/,
            },
          ],
        },
      },
    },
  },
})
