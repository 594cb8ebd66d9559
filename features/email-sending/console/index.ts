// The console pages of this feature (the e-mail outbox), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/email', load: () => import('./email') }],
  menu: [{ path: '/email', label: 'E-mail', position: 90 }],
} satisfies FeatureConsole
