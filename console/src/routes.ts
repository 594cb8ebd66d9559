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
const players = () => import('../../features/users/console/players')
const player = () => import('../../features/users/console/player')
const leaderboards = () => import('../../features/leaderboard/console/leaderboards')
const leaderboard = () => import('../../features/leaderboard/console/leaderboard')
const cosmetics = () => import('../../features/player-profile/console/cosmetics')
const runs = () => import('../../features/validated-actions/console/runs')
const run = () => import('../../features/validated-actions/console/run')
const remoteConfig = () => import('../../features/remote-config/console/remote-config')
const news = () => import('../../features/news/console/news')
const giftCodes = () => import('../../features/gift-codes/console/gift-codes')
const giftCode = () => import('../../features/gift-codes/console/gift-code')
const email = () => import('../../features/email-sending/console/email')
const crashes = () => import('../../features/crash-reporting/console/crashes')
const crash = () => import('../../features/crash-reporting/console/crash')
const feedback = () => import('../../features/user-feedback/console/feedback')
const userLogs = () => import('../../features/user-logs/console/user-logs')
const localization = () => import('../../features/localization/console/localization')
const operators = () => import('../../features/operators/console/operators')
const audit = () => import('../../features/operators/console/audit')
const settings = () => import('../../features/settings/console/settings')
const webhooks = () => import('../../features/webhooks/console/webhooks')
const webhook = () => import('../../features/webhooks/console/webhook-deliveries')

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
