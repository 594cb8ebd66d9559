import t from 'tap'
import { eachDialect } from '../../helpers/app.js'
import { startReceiver, type Receiver } from '../../helpers/receiver.js'
import { createHook, drain, hookApp } from '../../helpers/webhooks.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { report } from '../../fixtures/crash-reporting.js'
import { createUser } from '../../fixtures/users.js'
import { discordParagraph, discordText, slackText, thousands } from '../../../features/webhooks/escape.js'

/**
 * Text a player controls never acts in a discord or slack body: no ping, no link in disguise, no
 * Markdown. Real requests raise the events; real receivers get the bodies.
 */

const EVIL_TITLE = '<!channel> <https://evil.example|Open in the console>'
const EVIL_MESSAGE = '@here **urgent** [log in](https://evil.example) <@123456> ||x||\n# Admin\n> quote `code`'
const ZWSP = '\u200b'

/** Every string inside a JSON value (the texts of a body). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}

const bodies = (receiver: Receiver) => receiver.received.map((r) => JSON.parse(r.body))

t.test('escapers: each character escaped, cut on a whole escape with an ellipsis', async (t) => {
  t.equal(discordText('a*b_c~d`e|f>g#h-i[j](k)<l\\m', 100), 'a\\*b\\_c\\~d\\`e\\|f\\>g\\#h\\-i\\[j\\]\\(k\\)\\<l\\\\m')
  t.equal(discordText('@everyone and @here', 100), `@${ZWSP}everyone and @${ZWSP}here`)
  t.equal(discordText('two\n\nlines', 100), 'two lines', 'one line: a player cannot fake lines of ours')
  t.equal(discordParagraph('two\nlines', 100), 'two\nlines', 'a paragraph keeps its breaks')
  t.equal(slackText('<!channel> & <https://x|y>', 100), '&lt;!channel&gt; &amp; &lt;https://x|y&gt;')
  const cut = discordText('*'.repeat(5000), 1024)
  t.ok(cut.length <= 1024, `cut to ${cut.length}`)
  t.match(cut, /^(\\\*)+…$/, 'only whole escapes before the ellipsis')
  t.match(slackText('&'.repeat(500), 100), /^(&amp;)+…$/)
  t.equal(slackText('&'.repeat(500), 100).length, 96)
  t.equal(discordText('😀'.repeat(10), 7), '😀😀😀…', 'a surrogate pair is never split')
  t.equal(thousands(1000000), '1,000,000')
  t.equal(thousands(-1234567.5), '-1,234,567.5')
  t.equal(thousands(999), '999')
  t.equal(thousands('n/a'), 'n/a')
})

eachDialect(t, async (t, dialect) => {
  const ctx = await hookApp(t, dialect)
  const { admin, call } = ctx

  t.test("a player's name, titles, messages, crash text and ban reasons never act", async (t) => {
    const discord = await startReceiver(t)
    const slack = await startReceiver(t)
    const events = ['leaderboard.new_leader', 'feedback.submitted', 'crash.group_created', 'player.banned']
    const d = await createHook(ctx, { url: discord.url, events, format: 'discord' })
    const s = await createHook(ctx, { url: slack.url, events, format: 'slack' })

    const everyone = await createUser(ctx, { username: '@everyone' })
    await createBoard(ctx, 'esc-cup', { name: 'Cup **of** <@&42>' })
    t.equal((await submit(ctx, 'esc-cup', everyone.userId, 1_000_000)).statusCode, 200)
    const feedback = await call({
      method: 'POST',
      url: '/user-feedback/submit',
      payload: { title: EVIL_TITLE, message: EVIL_MESSAGE },
    })
    t.equal(feedback.statusCode, 200, feedback.body)
    await report(ctx, { fingerprint: 'esc-fp', appVersion: '1.0.0', message: '<!here> @everyone _crash_ <#1>' })
    const banned = await admin({
      method: 'POST',
      url: `/users/${everyone.userId}/ban`,
      payload: { reason: '<!channel> see <https://evil.example|the rules> & @here' },
    })
    t.equal(banned.statusCode, 200)
    await drain(ctx)

    const dBodies = bodies(discord)
    t.equal(dBodies.length, 4, 'four discord bodies')
    for (const body of dBodies) {
      t.same(body.allowed_mentions, { parse: [] }, 'allowed_mentions parses nothing')
      const texts = strings({ content: body.content, embeds: body.embeds })
      for (const text of texts) {
        t.notMatch(text, /@(everyone|here)/, `no live @everyone or @here: ${text.slice(0, 60)}`)
        t.notMatch(text, /(^|[^\\])[<[]/, `every < and [ escaped: ${text.slice(0, 60)}`)
      }
    }
    const byFooter = (type: string) => dBodies.find((b) => b.embeds[0].footer.text === `Outpost · ${type}`)
    const leader = byFooter('leaderboard.new_leader')
    t.match(leader.content, `@${ZWSP}everyone took first place on Cup \\*\\*of\\*\\* \\<@${ZWSP}&42\\> with 1,000,000`)
    const fields = Object.fromEntries(leader.embeds[0].fields.map((f: any) => [f.name, f.value]))
    t.match(fields, { Player: `@${ZWSP}everyone`, Board: `Cup \\*\\*of\\*\\* \\<@${ZWSP}&42\\>`, Score: '1,000,000' })
    t.match(leader.embeds[0].description, /with 1,000,000$/)

    const filed = byFooter('feedback.submitted')
    t.equal(
      filed.embeds[0].title,
      'Feedback submitted: \\<!channel\\> \\<https://evil.example\\|Open in the console\\>',
      "the embed's title is the feedback's, escaped",
    )
    t.equal(
      filed.embeds[0].description,
      `@${ZWSP}here \\*\\*urgent\\*\\* \\[log in\\]\\(https://evil.example\\) \\<@${ZWSP}123456\\> \\|\\|x\\|\\|\n\\# Admin\n\\> quote \\\`code\\\``,
      "the embed carries the feedback's message, escaped, its lines kept",
    )
    t.match(byFooter('crash.group_created').content, `\\<!here\\> @${ZWSP}everyone \\_crash\\_ \\<\\#1\\>`)
    const banFields = Object.fromEntries(byFooter('player.banned').embeds[0].fields.map((f: any) => [f.name, f.value]))
    t.match(banFields, {
      Player: `@${ZWSP}everyone`,
      Reason: `\\<!channel\\> see \\<https://evil.example\\|the rules\\> & @${ZWSP}here`,
    })

    const sBodies = bodies(slack)
    t.equal(sBodies.length, 4, 'four slack bodies')
    for (const body of sBodies) {
      t.same(Object.keys(body), ['text'])
      const links = body.text.match(/<[^>]*>/g)
      t.same(
        links,
        [body.text.match(/<http:\/\/localhost:8080\/console\/#\/[^|>]*\|Open in the Outpost console>/)![0]],
        'the one <…> that acts is our own link to the console',
      )
    }
    const sFeedback = sBodies.find((b) => b.text.startsWith('*Feedback submitted*'))
    t.match(sFeedback.text, '&lt;!channel&gt; &lt;https://evil.example|Open in the console&gt;')
    t.match(
      sFeedback.text,
      '\n>@here **urgent** [log in](https://evil.example) &lt;@123456&gt; ||x|| # Admin &gt; quote',
    )
    t.match(sBodies.find((b) => b.text.startsWith('*New crash*')).text, '&lt;!here&gt; @everyone _crash_ &lt;#1&gt;')
    t.match(
      sBodies.find((b) => b.text.startsWith('*Player banned*')).text,
      '&lt;!channel&gt; see &lt;https://evil.example|the rules&gt; &amp; @here',
    )
    t.match(
      sBodies.find((b) => b.text.startsWith('*New leader*')).text,
      'on Cup **of** &lt;@&amp;42&gt; with 1,000,000',
    )
    await admin({ method: 'DELETE', url: `/webhooks/${d.id}` })
    await admin({ method: 'DELETE', url: `/webhooks/${s.id}` })
  })

  t.test("Discord's limits hold with the longest text a player can send", async (t) => {
    const discord = await startReceiver(t)
    const d = await createHook(ctx, { url: discord.url, events: ['feedback.submitted'], format: 'discord' })
    const player = await createUser(ctx, { username: `limits${Date.now() % 1000}` })
    const sent = await call({
      method: 'POST',
      url: '/user-feedback/submit',
      payload: { userId: player.userId, title: '*'.repeat(100), message: '<'.repeat(2048), category: '#'.repeat(32) },
    })
    t.equal(sent.statusCode, 200, sent.body)
    await drain(ctx)
    const [body] = bodies(discord)
    const embed = body.embeds[0]
    t.ok(body.content.length <= 2000, `content ${body.content.length} ≤ 2000`)
    t.ok(embed.title.length <= 256, `title ${embed.title.length} ≤ 256`)
    t.match(embed.title, /^Feedback submitted: (\\\*){100}$/, 'the title whole, every * escaped')
    t.ok(embed.description.length <= 4096, `description ${embed.description.length} ≤ 4096`)
    t.match(embed.description, /^(\\<)+$/, 'the stored message (its first 1000 characters), every < escaped')
    t.ok(
      embed.fields.every((f: any) => f.value.length <= 1024),
      'every field value ≤ 1024',
    )
    const total =
      embed.title.length +
      embed.description.length +
      embed.footer.text.length +
      embed.fields.reduce((n: number, f: any) => n + f.name.length + f.value.length, 0)
    t.ok(total <= 6000, `the embed's text ${total} ≤ 6000`)
    await admin({ method: 'DELETE', url: `/webhooks/${d.id}` })
  })
})
