// Draws one chart with uPlot (canvas, ~50 KB): loaded only by pages that show a chart, as its own chunk,
// so the sign-in form and the shell never carry it. Colours come from the console's theme variables,
// read when drawing; the caller draws again when the theme changes.
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatValue, type ChartSpec } from './spec'

/** A theme variable resolved to a colour the canvas understands (`light-dark()` is resolved by CSS). */
function themeColour(host: HTMLElement, variable: string): string {
  const probe = document.createElement('span')
  probe.style.color = `var(${variable})`
  probe.style.display = 'none'
  host.append(probe)
  const colour = getComputedStyle(probe).color
  probe.remove()
  return colour
}

/** `rgb(r, g, b)` → `rgba(r, g, b, alpha)`, for the area under a line. */
function faded(colour: string, alpha: number): string {
  const parts = colour.match(/\d+(\.\d+)?/g)
  return parts && parts.length >= 3 ? `rgba(${parts[0]}, ${parts[1]}, ${parts[2]}, ${alpha})` : colour
}

const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC')
const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10)

/** The last point with a value (or the last point): what the legend shows while no point is hovered. */
function latestIndex(values: Array<number | null>): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return i
  return values.length - 1
}

export interface Drawn {
  resize: (width: number) => void
  destroy: () => void
}

const AXIS_FONT = '11px system-ui, sans-serif'
/** Least room between two category labels, in CSS pixels. */
const LABEL_GAP = 8

/** Text widths in the axis font, in CSS pixels. */
function measurer(): (text: string) => number {
  const context = document.createElement('canvas').getContext('2d')
  if (!context) return (text) => text.length * 7
  context.font = AXIS_FONT
  return (text) => context.measureText(text).width
}

/**
 * Which category labels are drawn: every k-th, counted from the last (a histogram's last bucket holds
 * its high outliers), where the widest label plus a gap fits in k categories' width, so no two labels
 * drawn can touch, whatever the width of the chart.
 */
function shownLabels(labels: string[], plotWidth: number, measure: (text: string) => number): boolean[] {
  const widest = Math.max(...labels.map(measure))
  const slot = plotWidth / Math.max(1, labels.length)
  const step = Math.max(1, Math.ceil((widest + LABEL_GAP) / slot))
  return labels.map((_, i) => (labels.length - 1 - i) % step === 0)
}

export function draw(host: HTMLElement, spec: ChartSpec, width: number): Drawn {
  const accent = themeColour(host, '--accent')
  const text = themeColour(host, '--muted')
  const line = themeColour(host, '--line')
  const axis: uPlot.Axis = {
    stroke: text,
    grid: { stroke: line, width: 1 },
    ticks: { stroke: line, width: 1 },
    font: AXIS_FONT,
  }
  const bars = spec.kind === 'bars'
  const labels = spec.xLabels
  // uPlot's legend shows the hovered point; with none hovered it would say "--": it says the latest day.
  const latest = latestIndex(spec.values)
  const at = (idx: number | null) => (idx === null ? latest : idx)
  const measure = measurer()
  const options: uPlot.Options = {
    width,
    height: spec.height ?? 180,
    legend: { show: !labels },
    cursor: { drag: { x: false, y: false } },
    scales: {
      // Bars stand on their x value: half a step of room on either side keeps the first and last whole.
      x: {
        time: !labels,
        ...(bars && { range: (_u, min, max) => (labels ? [min - 0.5, max + 0.5] : [min - 43_200, max + 43_200]) }),
      },
      y: {
        range: (_u, min, max) => {
          // A little room below the lowest share, so a point on it is not cut by the plot's edge.
          if (spec.percent) return [Math.max(0, Math.min(min, 0.9) - 0.05), 1]
          return [0, max > 0 ? max * 1.1 : 1]
        },
      },
    },
    tzDate: utc,
    axes: [
      labels
        ? {
            ...axis,
            splits: () => labels.map((_, i) => i),
            // Thinned to what the plot's width holds (measured in the axis font): labels never overlap.
            values: (u, splits) => {
              const shown = shownLabels(labels, u.bbox.width / uPlot.pxRatio || width, measure)
              return splits.map((i) => (shown[i] ? labels[i]! : ''))
            },
          }
        : axis,
      {
        ...axis,
        size: 60,
        values: (_u, splits) =>
          splits.map((v) => (spec.percent ? `${+(v * 100).toFixed(1)} %` : v.toLocaleString('en'))),
      },
    ],
    series: [
      labels ? {} : { label: 'Day (UTC)', value: (_u, _v, _s, idx) => (spec.x.length ? isoDay(spec.x[at(idx)]) : '—') },
      {
        label: spec.label,
        stroke: accent,
        width: 2,
        fill: faded(accent, bars ? 0.55 : 0.12),
        spanGaps: false,
        points: { show: spec.values.length <= 31 },
        value: (_u, _v, _s, idx) => formatValue(spec.values[at(idx)] ?? null, spec.percent),
        ...(bars && { paths: uPlot.paths.bars!({ size: [0.8, 64] }), points: { show: false } }),
      },
    ],
  }
  if (labels) {
    // What the x axis shows, with each label's box in CSS pixels: the page's tests check that no two
    // boxes overlap at any width.
    options.hooks = {
      draw: [
        (u) => {
          const shown = shownLabels(labels, u.bbox.width / uPlot.pxRatio, measure)
          const boxes = labels.flatMap((text, i) => {
            if (!shown[i]) return []
            const centre = u.valToPos(i, 'x')
            const half = measure(text) / 2
            return [{ text, left: centre - half, right: centre + half }]
          })
          host.dataset.axisLabels = JSON.stringify(boxes)
        },
      ],
    }
  }
  const chart = new uPlot(options, [spec.x, spec.values as number[]], host)
  return {
    resize: (next) => chart.setSize({ width: next, height: options.height }),
    destroy: () => chart.destroy(),
  }
}
