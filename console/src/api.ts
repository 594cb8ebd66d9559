// The console's one way to the server: the admin API, next to the console's own path, so that the
// console works under any prefix a reverse proxy puts in front of Outpost.
import { allows, GAME_RIGHTS, OWNER_RIGHTS, type Role } from '../../platform/security/roles'
import { gamePath, readGame, writeGame } from './games'

/** An error answer of the admin API: `{ statusCode, error, code, message, details? }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message)
  }
}

/** `<prefix>/console/` → `<prefix>/api/v1/admin`. */
export const ADMIN_BASE = new URL('../api/v1/admin', window.location.href).pathname

/** Called when any answer says the session is gone, so the shell can show the sign-in form again. */
let onSignedOut: () => void = () => {}
export function whenSignedOut(handler: () => void) {
  onSignedOut = handler
}

// ---- the chosen game: every game-scoped request goes to /games/{game}/… (none for `default`) ----

function storage(): Storage | undefined {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

let game = readGame(storage())

/** The game the console addresses now. */
export function chosenGame(): string {
  return game
}

/** Addresses `id` from the next request on, and remembers it for the next visit. */
export function chooseGame(id: string) {
  game = id
  writeGame(storage(), id)
}

export type Query = Record<string, string | number | boolean | null | undefined>

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  }
  const text = params.toString()
  return text ? `${path}?${text}` : path
}

async function request(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = {
    // The server refuses a cookie-authenticated write without this header (CSRF): a form on another
    // site cannot set it.
    'X-Requested-With': 'outpost-console',
    Accept: accept,
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const response = await fetch(`${ADMIN_BASE}${gamePath(path, game)}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.ok) return response
  let parsed: { code?: string; message?: string; details?: Array<{ path: string; message: string }> } = {}
  try {
    parsed = await response.json()
  } catch {
    parsed = {}
  }
  const error = new ApiError(
    response.status,
    parsed.code ?? `HTTP_${response.status}`,
    parsed.message ??
      (response.status === 429 ? 'Too many requests: wait a moment and try again' : response.statusText),
    parsed.details,
  )
  if (response.status === 401 && !path.startsWith('/session')) onSignedOut()
  throw error
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await request(method, path, body)
  const text = await response.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export const get = <T>(path: string, query?: Query) => api<T>('GET', withQuery(path, query))

/** A binary or text download (evidence, exports): fetched with the session, saved under `filename`. */
export async function download(path: string, filename: string, accept?: string) {
  const response = await request('GET', path, undefined, accept)
  saveBlob(await response.blob(), filename)
}

export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

export const enc = encodeURIComponent

// ---- rights: the server's own map (the server enforces it; the console disables what it would refuse) ----

/** Where a write lands: the game (players, boards, content, support) or the operators and settings. */
export type Area = 'game' | 'operators'

export function canWrite(role: Role | undefined, area: Area = 'game'): boolean {
  return role !== undefined && allows(role, (area === 'game' ? GAME_RIGHTS : OWNER_RIGHTS).write)
}
