// What the documentation tests read from Markdown: headings, their anchors, link targets.

/** Markdown without its fenced code blocks, where a `# x` line is not a heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '')
}

/** Markdown without its fenced code blocks and inline code, where a `[x](y)` is not a link. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '')
}

/** Every link target of a Markdown text (inline links and images). */
export function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
}

/** The text of every heading, as written. */
export function headings(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim())
}

/** GitHub's anchor for one heading: lower case, punctuation dropped, spaces as dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

/** GitHub's anchors for a file's headings, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const text of headings(markdown)) {
    const base = slug(text)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count ? `${base}-${count}` : base)
  }
  return result
}
