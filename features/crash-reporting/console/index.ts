// The console pages of this feature (crashes: the groups and one group), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/crashes', load: () => import('./crashes') },
    { pattern: '/crashes/:groupId', load: () => import('./crash') },
  ],
  menu: [{ path: '/crashes', label: 'Crashes', position: 100 }],
} satisfies FeatureConsole
