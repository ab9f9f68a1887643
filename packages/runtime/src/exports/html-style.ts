// The HTML export's one stylesheet (inline: the file loads nothing). Light and dark follow
// prefers-color-scheme; every colour pair meets WCAG AA contrast (4.5:1 for text, 3:1 for
// borders and the focus ring); the layout reads at 320 px: long lines and code wrap, nothing
// scrolls sideways.
export const htmlExportStyle = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #535a63; --line: #8a939d; --panel: #f3f5f7;
  --user: #eef4ff; --link: #0a4fb8; --error: #a3161a; --focus: #0a4fb8; --code: #f0f2f4;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181c; --fg: #e7eaee; --muted: #aab2bc; --line: #6f7883; --panel: #1f242a;
    --user: #1c2636; --link: #8cb8ff; --error: #ff9a94; --focus: #8cb8ff; --code: #232a31;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  overflow-wrap: anywhere;
}
.page { max-width: 52rem; margin: 0 auto; padding: 1rem; }
a { color: var(--link); text-underline-offset: 0.15em; }
a:focus-visible, summary:focus-visible, main:focus-visible, section:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px;
}
main:focus:not(:focus-visible) { outline: none; }
.skip { position: absolute; left: 0.5rem; top: -3rem; background: var(--bg); padding: 0.5rem; z-index: 1; }
.skip:focus { top: 0.5rem; }
.sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0; }
h2 { font-size: 1.3rem; line-height: 1.3; margin: 0 0 0.5rem; }
h3 { font-size: 1.05rem; margin: 0; }
h4, h5, h6 { font-size: 1rem; margin: 1rem 0 0.25rem; }
.muted, .turn-meta, .note, .turn-end, .who, .label, .clipped { color: var(--muted); }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.875rem; }
pre {
  white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code); padding: 0.5rem 0.75rem;
  border-radius: 4px; margin: 0.25rem 0;
}
code { background: var(--code); padding: 0 0.2em; border-radius: 3px; }
pre code { background: none; padding: 0; }
header.doc { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
nav.tree-nav { border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; margin-bottom: 1.5rem; }
nav.tree-nav ul { list-style: none; margin: 0; padding-left: 1.1rem; }
nav.tree-nav > ul { padding-left: 0; }
nav.tree-nav li { margin: 0.35rem 0; }
nav.tree-nav li li { border-left: 1px solid var(--line); padding-left: 0.6rem; }
.badge { display: inline-block; border: 1px solid var(--line); border-radius: 3px; padding: 0 0.3em; font-size: 0.8rem; color: var(--muted); }
section.session { border-top: 3px solid var(--line); padding-top: 1rem; margin-top: 2rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.75rem; margin: 0 0 1rem; font-size: 0.925rem; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; min-width: 0; }
@media (max-width: 30rem) {
  .page { padding: 0.5rem; } section.turn { padding: 0.5rem; }
  dl.meta { grid-template-columns: 1fr; } dl.meta dd { margin-bottom: 0.35rem; }
}
.inherited, .divider, .branches-here p { border-left: 3px solid var(--line); padding: 0.25rem 0.75rem; margin: 0.75rem 0; background: var(--panel); }
section.turn { border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; margin: 1rem 0; }
.turn-meta { margin: 0 0 0.5rem; font-size: 0.875rem; }
.message { margin: 0.5rem 0; }
.message.user { background: var(--user); border-radius: 6px; padding: 0.5rem 0.75rem; }
.who { font-size: 0.8rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em; margin: 0; }
.plain { white-space: pre-wrap; }
.markdown > :first-child { margin-top: 0.25rem; }
.markdown table { border-collapse: collapse; margin: 0.5rem 0; }
.markdown th, .markdown td { border: 1px solid var(--line); padding: 0.2rem 0.5rem; text-align: left; }
.markdown blockquote { margin: 0.5rem 0; padding-left: 0.75rem; border-left: 3px solid var(--line); color: var(--muted); }
img.attached { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; margin: 0.25rem 0; }
details.block { border: 1px solid var(--line); border-radius: 4px; margin: 0.5rem 0; background: var(--panel); }
details.block > summary { cursor: pointer; padding: 0.35rem 0.6rem; }
details.block[open] > summary { border-bottom: 1px solid var(--line); }
.tool-body, details.reasoning > pre, details.block > .markdown { padding: 0.25rem 0.6rem 0.5rem; }
.tool-name { font-weight: 600; }
.tool-error > summary .tool-state, .turn-failed, .turn-error { color: var(--error); }
.label { font-size: 0.8rem; font-weight: 600; margin: 0.5rem 0 0; }
.turn-end { font-size: 0.875rem; margin: 0.5rem 0 0; }
.note { font-size: 0.875rem; margin: 0.35rem 0; }
.clipped { font-size: 0.875rem; font-style: italic; }
p.back { margin: 1rem 0 0; font-size: 0.925rem; }
footer.doc { border-top: 1px solid var(--line); margin-top: 2rem; padding-top: 0.5rem; font-size: 0.875rem; color: var(--muted); }
@media print { details.block { break-inside: avoid; } .skip { display: none; } }
`
