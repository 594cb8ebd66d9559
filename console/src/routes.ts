import type { ConsoleRoute, FeatureConsole, MenuEntry } from './page'
import type { Role } from './types'

/** The shell's own page: the overview heads both lists. */
const SHELL: FeatureConsole = {
  routes: [{ pattern: '/', load: () => import('./pages/overview') }],
  menu: [{ path: '/', label: 'Overview', position: 0 }],
}

// Each feature with pages declares them in its console/index.ts; Vite inlines this list at build time.
// The declarations load with the shell (a few hundred bytes); each page stays its own chunk.
const FEATURES = Object.values(
  import.meta.glob<FeatureConsole>('../../features/*/console/index.ts', { eager: true, import: 'default' }),
)

/** The lowest menu position of a feature: its pages sit in ROUTES where its menu lines sit in NAV. */
const first = (pages: FeatureConsole) => Math.min(...pages.menu.map((entry) => entry.position))
const byPosition = [SHELL, ...FEATURES].sort((a, b) => first(a) - first(b))

/** Every page, in menu order (no two patterns match the same path, so the order only reads well). */
const ROUTES: ConsoleRoute[] = byPosition.flatMap((pages) => pages.routes)

/** The navigation: only pages backed by admin routes that exist. */
export const NAV: MenuEntry[] = byPosition.flatMap((pages) => pages.menu).sort((a, b) => a.position - b.position)

export function resolve(path: string, role: Role): { route: ConsoleRoute; params: Record<string, string> } | null {
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
