// The console pages of this feature (the server settings), gathered by console/src/routes.ts.
// Owners only: the server answers other roles 403 on their admin routes anyway.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/settings', load: () => import('./settings'), owner: true }],
  menu: [{ path: '/settings', label: 'Settings', owner: true, position: 150 }],
} satisfies FeatureConsole
