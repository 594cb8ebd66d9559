// What the router hands a page, and what a feature hands the router: their own module, so that pages
// and the features' console/index.ts need not import the router that loads them.
import type { ComponentType } from 'preact'

export interface PageProps {
  /** The route's `:name` segments, decoded. */
  params: Record<string, string>
}

/** One console address: the page behind it loads on first visit, as its own chunk. */
export interface ConsoleRoute {
  /** The hash path, `:name` segments for parameters (`/players/:userId`). */
  pattern: string
  /** A dynamic `import()` of the page module, so the page stays out of the first load. */
  load: () => Promise<{ default: ComponentType<PageProps> }>
  /** Owners only: the server answers other roles 403 on these pages' admin routes anyway. */
  owner?: boolean
}

/** One line of the console's menu. */
export interface MenuEntry {
  path: string
  label: string
  /** Shown to owners only, like the route it leads to. */
  owner?: boolean
  /** Where the line sits in the menu, lowest first: features are gathered in no set order. */
  position: number
}

/** What a feature's `console/index.ts` exports by default: its pages and its menu lines. */
export interface FeatureConsole {
  routes: ConsoleRoute[]
  menu: MenuEntry[]
}
