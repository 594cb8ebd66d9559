/**
 * Text a player controls (names, titles, messages, crash text, reasons, board names) made inert for
 * the chat tool that shows it: it reads as written and never acts. Discord: every Markdown character
 * gets a backslash (so no bold, heading, quote, spoiler, code, masked link `[x](y)`, and no mention
 * or emoji syntax `<@id>`, `<#id>`, `<@&id>`, `<t:…>`), and a zero-width space follows each `@` (so
 * `@everyone` and `@here` are plain words even to a client that ignores `allowed_mentions`). Slack:
 * `&`, `<` and `>` become entities, so `<!channel>`, `<@U123>` and `<https://x|y>` are plain text.
 *
 * Each function takes the value and the most characters it may take once escaped; a longer one is cut
 * with an ellipsis between two escaped characters, never inside an escape (a `\` left alone would
 * escape the ellipsis, `&am` would show as is) nor inside a surrogate pair.
 */
export type Escaper = (value: unknown, max: number) => string

const ELLIPSIS = '…'
const ZERO_WIDTH_SPACE = '\u200b'
const DISCORD_MARKDOWN = new Set(['\\', '*', '_', '~', '`', '|', '>', '#', '-', '[', ']', '(', ')', '<'])
const SLACK_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }

const plain = (value: unknown): string => (value === undefined || value === null ? '' : String(value))

/** Runs of white space (new lines too) as one space: a player's text cannot fake lines of ours. */
const oneLine = (value: unknown): string => plain(value).replace(/\s+/g, ' ').trim()

/** The escaped pieces joined, or as many as fit in `max` less one, and an ellipsis. */
function fit(pieces: string[], max: number): string {
  let length = 0
  for (const piece of pieces) length += piece.length
  if (length <= max) return pieces.join('')
  let out = ''
  for (const piece of pieces) {
    if (out.length + piece.length + ELLIPSIS.length > max) break
    out += piece
  }
  return out + ELLIPSIS
}

function discordPieces(text: string): string[] {
  // Spread by code point, so an emoji's surrogate pair stays one piece.
  return [...text].map((ch) => (DISCORD_MARKDOWN.has(ch) ? `\\${ch}` : ch === '@' ? `@${ZERO_WIDTH_SPACE}` : ch))
}

/** Discord, on one line. */
export const discordText: Escaper = (value, max) => fit(discordPieces(oneLine(value)), max)

/** Discord, its line breaks kept (a feedback message in an embed's description). */
export const discordParagraph: Escaper = (value, max) =>
  fit(discordPieces(plain(value).replace(/\r\n?/g, '\n').trim()), max)

/** Slack, on one line. */
export const slackText: Escaper = (value, max) =>
  fit(
    [...oneLine(value)].map((ch) => SLACK_ENTITIES[ch] ?? ch),
    max,
  )

/** An integer (or a decimal) with thousands separators, `1000000` → `1,000,000`; anything else as is. */
export function thousands(value: unknown): string {
  const text = plain(value)
  if (!/^-?\d+(\.\d+)?$/.test(text)) return text
  return text.replace(/^-?\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','))
}
