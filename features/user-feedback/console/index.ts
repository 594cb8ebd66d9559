// The console pages of this feature (the feedback list), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/feedback', load: () => import('./feedback') }],
  menu: [{ path: '/feedback', label: 'Feedback', position: 110 }],
} satisfies FeatureConsole
