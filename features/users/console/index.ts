// The console pages of this feature (players: the list and one player), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/players', load: () => import('./players') },
    { pattern: '/players/:userId', load: () => import('./player') },
  ],
  menu: [{ path: '/players', label: 'Players', position: 10 }],
} satisfies FeatureConsole
