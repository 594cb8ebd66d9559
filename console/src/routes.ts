import type { ComponentType } from 'preact'
import type { PageProps } from './page'
import type { Role } from './types'

interface Route {
  pattern: string
  load: () => Promise<{ default: ComponentType<PageProps> }>
  owner?: boolean
}

// Each page is its own chunk: the first load carries only the shell and the sign-in form.
const overview = () => import('./pages/overview')
const players = () => import('./pages/players/players')
const player = () => import('./pages/players/player')
const leaderboards = () => import('./pages/leaderboards/leaderboards')
const leaderboard = () => import('./pages/leaderboards/leaderboard')
const cosmetics = () => import('./pages/content/cosmetics')
const runs = () => import('./pages/leaderboards/runs')
const run = () => import('./pages/leaderboards/run')
const remoteConfig = () => import('./pages/content/remote-config')
const news = () => import('./pages/content/news')
const giftCodes = () => import('./pages/content/gift-codes')
const giftCode = () => import('./pages/content/gift-code')
const email = () => import('./pages/support/email')
const crashes = () => import('./pages/support/crashes')
const crash = () => import('./pages/support/crash')
const feedback = () => import('./pages/support/feedback')
const userLogs = () => import('./pages/support/user-logs')
const localization = () => import('./pages/content/localization')
const operators = () => import('./pages/admin/operators')
const audit = () => import('./pages/admin/audit')
const settings = () => import('./pages/admin/settings')
const webhooks = () => import('./pages/admin/webhooks')
const webhook = () => import('./pages/admin/webhook-deliveries')

const ROUTES: Route[] = [
  { pattern: '/', load: overview },
  { pattern: '/players', load: players },
  { pattern: '/players/:userId', load: player },
  { pattern: '/leaderboards', load: leaderboards },
  { pattern: '/leaderboards/:boardKey', load: leaderboard },
  { pattern: '/cosmetics', load: cosmetics },
  { pattern: '/runs', load: runs },
  { pattern: '/runs/:runId', load: run },
  { pattern: '/remote-config', load: remoteConfig },
  { pattern: '/news', load: news },
  { pattern: '/gift-codes', load: giftCodes },
  { pattern: '/gift-codes/:code', load: giftCode },
  { pattern: '/email', load: email },
  { pattern: '/crashes', load: crashes },
  { pattern: '/crashes/:groupId', load: crash },
  { pattern: '/feedback', load: feedback },
  { pattern: '/user-logs', load: userLogs },
  { pattern: '/localization', load: localization },
  // Owners only: the server answers other roles 403 on these routes anyway.
  { pattern: '/operators', load: operators, owner: true },
  { pattern: '/audit', load: audit, owner: true },
  { pattern: '/settings', load: settings, owner: true },
  { pattern: '/webhooks', load: webhooks, owner: true },
  { pattern: '/webhooks/:id', load: webhook, owner: true },
]

/** The navigation: only pages backed by admin routes that exist. */
export const NAV: Array<{ path: string; label: string; owner?: boolean }> = [
  { path: '/', label: 'Overview' },
  { path: '/players', label: 'Players' },
  { path: '/leaderboards', label: 'Leaderboards' },
  { path: '/cosmetics', label: 'Cosmetics' },
  { path: '/runs', label: 'Validated runs' },
  { path: '/remote-config', label: 'Remote config' },
  { path: '/localization', label: 'Localization' },
  { path: '/news', label: 'News' },
  { path: '/gift-codes', label: 'Gift codes' },
  { path: '/email', label: 'E-mail' },
  { path: '/crashes', label: 'Crashes' },
  { path: '/feedback', label: 'Feedback' },
  { path: '/user-logs', label: 'User logs' },
  { path: '/operators', label: 'Operators', owner: true },
  { path: '/audit', label: 'Audit log', owner: true },
  { path: '/settings', label: 'Settings', owner: true },
  { path: '/webhooks', label: 'Webhooks', owner: true },
]

export function resolve(path: string, role: Role): { route: Route; params: Record<string, string> } | null {
  const parts = path.split('?')[0].split('/').filter(Boolean)
  for (const route of ROUTES) {
    if (route.owner && role !== 'owner') continue
    const pattern = route.pattern.split('/').filter(Boolean)
    if (pattern.length !== parts.length) continue
    const params: Record<string, string> = {}
    const matches = pattern.every((segment, i) => {
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(parts[i])
        } catch {
          return false
        }
        return true
      }
      return segment === parts[i]
    })
    if (matches) return { route, params }
  }
  return null
}
