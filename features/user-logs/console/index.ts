// The console pages of this feature (the user logs list), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/user-logs', load: () => import('./user-logs') }],
  menu: [{ path: '/user-logs', label: 'User logs', position: 120 }],
} satisfies FeatureConsole
