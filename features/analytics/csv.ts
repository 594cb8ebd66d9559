// The CSV forms of the daily series and the retention cohorts (`Accept: text/csv`): a header row,
// one line per day, an empty field for null. Values are numbers and dates only, so nothing needs quoting.
import type { DailyResponse, RetentionResponse } from './schemas.js'

const field = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value))

/** The daily series as CSV for a spreadsheet: one row per day, one column per metric. */
export function dailyCsv(data: DailyResponse): string {
  const metrics = Object.keys(data.series) as Array<keyof DailyResponse['series']>
  const lines = [['date', ...metrics].join(',')]
  data.days.forEach((day, i) => lines.push([day, ...metrics.map((m) => field(data.series[m]![i]))].join(',')))
  return lines.join('\r\n') + '\r\n'
}

/** The cohorts as CSV for a spreadsheet. */
export function retentionCsv(data: RetentionResponse): string {
  const lines = ['date,size,d1,d7,d30']
  for (const c of data.cohorts) lines.push([c.date, c.size, field(c.d1), field(c.d7), field(c.d30)].join(','))
  return lines.join('\r\n') + '\r\n'
}

/** True when the client asked for CSV rather than JSON (`Accept: text/csv`, before any JSON it also takes). */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase())
  const csv = types.indexOf('text/csv')
  if (csv === -1) return false
  const json = types.findIndex((t) => t === 'application/json')
  return json === -1 || csv < json
}
