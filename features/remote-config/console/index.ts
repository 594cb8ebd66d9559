// The console pages of this feature (the remote config values), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/remote-config', load: () => import('./remote-config') }],
  menu: [{ path: '/remote-config', label: 'Remote config', position: 50 }],
} satisfies FeatureConsole
