// Tables, and the cursor-paged lists of the admin API.
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { get, type Query } from '../api'
import type { Page } from '../types'
import { Loading, useLoad } from './load'

export interface Column<T> {
  label: string
  render: (item: T) => ComponentChildren
  /** A column of numbers: right-aligned, figures of one width (format the values with `num`). */
  numeric?: boolean
}

/** One page of an admin list and the cursors back to the pages before it. */
export function usePaged<T>(path: string, query: Query, limit = 25) {
  const [cursors, setCursors] = useState<string[]>([])
  const key = JSON.stringify([path, query])
  useEffect(() => setCursors([]), [key])
  const cursor = cursors[cursors.length - 1]
  const loaded = useLoad(() => get<Page<T>>(path, { ...query, limit, cursor }), [key, cursor])
  return {
    ...loaded,
    page: cursors.length + 1,
    next: () => loaded.data?.nextCursor && setCursors([...cursors, loaded.data.nextCursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
    first: () => setCursors([]),
  }
}

/** A table of items, one column per field; its caption is for screen readers. */
export function Table<T>({
  items,
  columns,
  caption,
  empty = 'Nothing here.',
}: {
  items: T[]
  columns: Array<Column<T>>
  caption: string
  /** Said in the table's one row when it has no items. */
  empty?: string
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" class={c.numeric ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.length === 0 && (
            <tr>
              <td class="empty" colSpan={columns.length}>
                {empty}
              </td>
            </tr>
          )}
          {items.map((item, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c.label} class={c.numeric ? 'num' : undefined}>
                  {c.render(item)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function PagedTable<T>({
  paged,
  columns,
  caption,
  empty = 'Nothing here yet.',
}: {
  paged: ReturnType<typeof usePaged<T>>
  columns: Array<Column<T>>
  caption: string
  empty?: string
}) {
  const items = paged.data?.items ?? []
  return (
    <section class="list">
      <Loading loaded={paged} />
      {paged.data && items.length === 0 && paged.page === 1 ? (
        <p class="muted">{empty}</p>
      ) : (
        paged.data && <Table items={items} columns={columns} caption={caption} empty={empty} />
      )}
      <Pager paged={paged} label={`${caption} pages`} />
    </section>
  )
}

/** Previous and next page of a cursor-paged list (back through the cursors already seen). */
export function Pager({ paged, label }: { paged: ReturnType<typeof usePaged<unknown>>; label: string }) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={paged.page === 1} onClick={paged.previous}>
        Previous page
      </button>
      <span>Page {paged.page}</span>
      <button type="button" disabled={!paged.data?.nextCursor} onClick={paged.next}>
        Next page
      </button>
    </nav>
  )
}
