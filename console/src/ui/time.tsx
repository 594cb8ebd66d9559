// Times: UTC on the page, the reader's local time on hover.

const pad = (n: number) => String(n).padStart(2, '0')

export function utc(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}:${pad(d.getUTCSeconds())} UTC`
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>
  return (
    <time dateTime={iso} title={`Local time: ${new Date(iso).toLocaleString()}`}>
      {utc(iso)}
    </time>
  )
}
