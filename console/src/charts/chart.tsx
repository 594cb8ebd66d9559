// A chart with its text alternative: a summary line under the title (read by screen readers as the
// figure's caption) and the same numbers as a table. The canvas is drawn by ./draw, a chunk of its
// own loaded on first use; it is drawn again when the theme or the width changes.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { formatValue, type ChartSpec } from './spec'

type DrawModule = typeof import('./draw')
let loading: Promise<DrawModule> | undefined
const loadDraw = () => (loading ??= import('./draw'))

/** Calls `onChange` when the console's theme (the operator's pick or the system's) changes. */
function useThemeChanges(onChange: () => void) {
  useEffect(() => {
    const observer = new MutationObserver(onChange)
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
    const media = window.matchMedia('(prefers-color-scheme: dark)')
    media.addEventListener('change', onChange)
    return () => {
      observer.disconnect()
      media.removeEventListener('change', onChange)
    }
  }, [])
}

function Plot({ spec }: { spec: ChartSpec }) {
  const host = useRef<HTMLDivElement>(null)
  const [theme, setTheme] = useState(0)
  const [failed, setFailed] = useState<unknown>(null)
  useThemeChanges(() => setTheme((n) => n + 1))
  useEffect(() => {
    const el = host.current
    if (!el) return
    let live = true
    let drawn: ReturnType<DrawModule['draw']> | undefined
    let observer: ResizeObserver | undefined
    loadDraw().then(
      ({ draw }) => {
        if (!live) return
        drawn = draw(el, spec, el.clientWidth || 300)
        el.dataset.drawn = 'true'
        let width = el.clientWidth
        observer = new ResizeObserver(() => {
          if (el.clientWidth !== width && el.clientWidth > 0) drawn?.resize((width = el.clientWidth))
        })
        observer.observe(el)
      },
      (caught) => live && setFailed(caught),
    )
    return () => {
      live = false
      observer?.disconnect()
      drawn?.destroy()
      delete el.dataset.drawn
      delete el.dataset.axisLabels
    }
  }, [spec, theme])
  if (failed) return <p class="error">The chart could not load; the table below has its numbers.</p>
  return <div class="chart-plot" ref={host} aria-hidden="true" />
}

export function Chart({
  id,
  title,
  summary,
  spec,
  columns,
  rows,
  actions,
}: {
  /** Names the chart for tests and styles (`data-chart`). */
  id: string
  title: string
  summary: string
  spec: ChartSpec
  /** The text alternative's header: the x column and the value column. */
  columns: [string, string]
  rows: string[]
  actions?: ComponentChildren
}) {
  // Named by its title and described by its summary line (the CSV button is not part of its name).
  const titleId = `chart-${id}-title`
  const summaryId = `chart-${id}-summary`
  return (
    <figure
      class="chart"
      data-chart={id}
      data-values={spec.values.map((v) => (v === null ? '' : String(v))).join(',')}
      aria-labelledby={titleId}
      aria-describedby={summaryId}
    >
      <figcaption>
        <span class="chart-title" id={titleId}>
          {title}
        </span>
        {actions && <span class="actions">{actions}</span>}
        <span class="chart-summary muted small" id={summaryId}>
          {summary}
        </span>
      </figcaption>
      <Plot spec={spec} />
      <details class="chart-data">
        <summary>Table of {title.toLowerCase()}</summary>
        <div class="table-wrap">
          <table>
            <caption class="sr-only">{title}</caption>
            <thead>
              <tr>
                <th scope="col">{columns[0]}</th>
                <th scope="col">{columns[1]}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={row}>
                  <th scope="row">{row}</th>
                  <td>{formatValue(spec.values[i] ?? null, spec.percent)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
