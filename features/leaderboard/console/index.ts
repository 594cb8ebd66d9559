// The console pages of this feature (boards: the list and one board), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/leaderboards', load: () => import('./leaderboards') },
    { pattern: '/leaderboards/:boardKey', load: () => import('./leaderboard') },
  ],
  menu: [{ path: '/leaderboards', label: 'Leaderboards', position: 20 }],
} satisfies FeatureConsole
