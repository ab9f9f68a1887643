// The branch glyph, drawn as SVG so it looks the same whatever fonts the system has.
export function BranchIcon({ size = 14 }: { size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      aria-hidden="true"
    >
      <circle cx="4" cy="3.5" r="1.75" />
      <circle cx="4" cy="12.5" r="1.75" />
      <circle cx="12" cy="5" r="1.75" />
      <path d="M4 5.25v5.5M12 6.75c0 3-4.5 2.5-7.2 4.6" />
    </svg>
  )
}

/** A plus, as SVG: a button drawn with it has no text of its own beside its label. */
export function PlusIcon({ size = 14 }: { size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      aria-hidden="true"
    >
      <path d="M8 3v10M3 8h10" />
    </svg>
  )
}
