// What the router hands a page: its own module, so that pages need not import the router that loads them.

export interface PageProps {
  /** The route's `:name` segments, decoded. */
  params: Record<string, string>
}
