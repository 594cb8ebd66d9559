// Times and numbers: UTC on the page, the reader's local time on hover; numbers with thousands separators.

const NUMBER = new Intl.NumberFormat('en')

/** A count or a score as people read it: 1,000,000 (a dash for none). */
export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : NUMBER.format(value)
}

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
  // Wraps, where it must, between the date and the clock only.
  const text = utc(iso)
  const cut = text.indexOf(' ')
  return (
    <time dateTime={iso} title={`Local time: ${new Date(iso).toLocaleString()}`}>
      {cut < 0 ? (
        text
      ) : (
        <>
          <span class="nowrap">{text.slice(0, cut)}</span> <span class="nowrap">{text.slice(cut + 1)}</span>
        </>
      )}
    </time>
  )
}
