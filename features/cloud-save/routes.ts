// The app routes of cloud save: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { present } from '../../platform/schemas/common.js'
import {
  LoadBodySchema,
  LoadQuerySchema,
  LoadResponseSchema,
  RawBytesSchema,
  SaveBodySchema,
  SaveHeadersSchema,
  SaveQuerySchema,
  SaveResponseSchema,
  type LoadResponse,
  type SaveBody,
} from './schemas.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { parseJsonBody } from '../../platform/http/http.js'
import { REVISION_HEADER, findSave, writeSave } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

// User-scoped: in compat mode the userId alone, a bearer when one is sent.
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { apiKey: [], session: [] }]
const OCTET = 'application/octet-stream'

/**
 * The JSON body limit for a save. JSON spells one decoded byte in at most 6 bytes (a control
 * character as `\u0001`; a 2-byte character as `\u00e9` is 3 per byte, a 3-byte one 2 per byte), so
 * 6 × max lets every save within CLOUD_SAVE_MAX_BYTES through whatever its escaping; 64 KiB covers
 * the rest of the object. The exact limit is then checked on the decoded string's UTF-8 bytes.
 * (2 × max would refuse valid saves that an SDK escapes heavily.)
 */
export function jsonBodyLimit(maxBytes: number): number {
  return 6 * maxBytes + 64 * 1024
}

/** The binary load: older SDKs GET with `Accept: application/octet-stream`, newer ones POST JSON with it. */
function wantsBytes(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  return accept.includes(OCTET) && !accept.includes('application/json')
}

/** `If-Match: 3` (the Unity SDK's conditional save), tolerating the quoted ETag spellings. */
function ifMatchVersion(header: string | undefined): number | undefined {
  if (header === undefined) return undefined
  return Number(/[0-9]+/.exec(header)![0])
}

const cloudSave: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  const maxBytes = app.config.CLOUD_SAVE_MAX_BYTES

  // Limits per content type, on the parsers: a route-level bodyLimit would override both. An
  // over-limit body is cut off while it streams in (413 PAYLOAD_TOO_LARGE), and at once when its
  // Content-Length already says so. The JSON parser is the house one, with this feature's limit.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: jsonBodyLimit(maxBytes) }, parseJsonBody)
  app.addContentTypeParser(OCTET, { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) =>
    done(null, body),
  )

  /** A binary save's bytes, set aside before validation so the JSON schema sees an empty body. */
  const binaryBodies = new WeakMap<FastifyRequest, Buffer>()

  async function setAsideBinaryBody(request: FastifyRequest) {
    if (Buffer.isBuffer(request.body)) {
      binaryBodies.set(request, request.body)
      request.body = {}
    }
  }

  // The one exception to user-scoped routes: a load for a userId that does not exist answers "no save", not 404. Format,
  // session and ban are checked exactly as on every other user-scoped route. Without a session the
  // existence is not even read (`userInStatement`): an unknown player has no save, which is that answer.
  const userScopedOrUnknown: preHandlerAsyncHookHandler = async function (request, reply) {
    try {
      await app.auth.userScoped.call(this, request, reply)
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'USER_NOT_FOUND')) throw error
    }
  }

  function expectedVersion(body: SaveBody, query: { expectedVersion?: number }, ifMatch: string | undefined) {
    const named = [present(body.expectedVersion), query.expectedVersion, ifMatchVersion(ifMatch)].filter(
      (v): v is number => v !== undefined,
    )
    if (new Set(named).size > 1)
      throw badRequest('expectedVersion and If-Match name different versions', '/expectedVersion')
    return named[0]
  }

  /** The save's bytes and expected version, taken from the request once it passed `checkSave`. */
  const checkedSaves = new WeakMap<FastifyRequest, { bytes: Buffer; binary: boolean; expected: number | undefined }>()

  // Validation beyond the schema, run before the session: a bad save is refused
  // whoever sends it.
  function checkSave(request: FastifyRequest) {
    const body = request.body as SaveBody
    const binary = binaryBodies.get(request)
    const text = binary ? undefined : (present(body.data) ?? present(body.saveData))
    if (binary === undefined && text === undefined) throw badRequest('body/data is required (or saveData)', '/data')
    const bytes = binary ?? Buffer.from(text!, 'utf8')
    if (bytes.length === 0) throw badRequest('The save is empty', '/data')
    if (bytes.length > maxBytes) {
      throw new AppError(
        413,
        'PAYLOAD_TOO_LARGE',
        `The save is ${bytes.length} bytes; the limit is ${maxBytes} bytes`,
        {
          maxBytes,
        },
      )
    }
    const expected = expectedVersion(body, request.query as { expectedVersion?: number }, request.headers['if-match'])
    checkedSaves.set(request, { bytes, binary: binary !== undefined, expected })
  }

  app.post(
    '/cloud-save/save',
    {
      schema: route.app({
        summary: "Save the player's cloud save (JSON text, or raw bytes as application/octet-stream with ?userId=)",
        security,
        consumes: ['application/json', OCTET],
        querystring: SaveQuerySchema,
        headers: SaveHeadersSchema,
        body: SaveBodySchema,
        response: { 200: SaveResponseSchema },
        errors: [403, 404, 409, 413, 415],
        docs: {
          description:
            `${examples.SCOPED} Stores the player's save: \`data\` or \`saveData\` (compat), a string kept as given and never parsed ` +
            '(if both are sent, `data` wins; a non-string is 400). Binary mode (compat): `Content-Type: application/octet-stream` ' +
            'with the raw bytes and `?userId=`. Versions start at 1 and go up by one per save; with `expectedVersion` (body, ' +
            'query or `If-Match`; 0 = no save yet) a different stored version is 409 `CONFLICT` with `currentVersion` in the ' +
            'body. Over `CLOUD_SAVE_MAX_BYTES` (default 300,000 bytes, UTF-8) is 413 `PAYLOAD_TOO_LARGE` and the old save is ' +
            'kept. 415 `UNSUPPORTED_MEDIA_TYPE` for another content type. 404 `USER_NOT_FOUND`. `revision` repeats `version` ' +
            '(the Unity SDK reads that name).',
          request: { userId: EX.userId, data: '{"level":7,"coins":1350}', expectedVersion: 11 },
          response: { success: true, dataSizeBytes: 24, version: 12, revision: 12, updatedAt: EX.now },
        },
      }),
      preValidation: setAsideBinaryBody,
      // The save's own statement decides whether the player exists (service.ts).
      config: { validate: checkSave, userInStatement: true },
      preHandler: app.auth.userScoped,
    },
    async (request, reply) => {
      const { bytes, binary, expected } = checkedSaves.get(request)!
      const saved = await writeSave(request.db, {
        userId: request.identity!.userId,
        bytes,
        binary,
        expectedVersion: expected,
        now: app.clock.now(),
      })
      reply.header(REVISION_HEADER, String(saved.version))
      return {
        success: true,
        dataSizeBytes: saved.dataSizeBytes,
        version: saved.version,
        revision: saved.version,
        updatedAt: toIso(saved.updatedAt),
      }
    },
  )

  async function load(userId: string | undefined, request: FastifyRequest, reply: FastifyReply) {
    const save = userId === undefined ? undefined : await findSave(request.db, userId)
    // The Unity SDK's snapshots read the version here (0: no save), on JSON, bytes and 204 alike.
    reply.header(REVISION_HEADER, String(save?.version ?? 0))
    if (wantsBytes(request)) {
      if (!save) return reply.code(204).send()
      return reply.code(200).type(OCTET).send(save.data)
    }
    if (!save) return reply.code(200).send({ found: false, data: null, saveData: null } satisfies LoadResponse)
    const binary = save.is_binary === 1
    const data = binary ? save.data.toString('base64') : save.data.toString('utf8')
    const body: LoadResponse = {
      found: true,
      data,
      saveData: data,
      ...(binary ? { encoding: 'base64' as const } : {}),
      version: save.version,
      updatedAt: toIso(save.updated_at),
    }
    return reply.code(200).send(body)
  }

  const loadResponses = {
    200: {
      description: 'The save: JSON, or its raw bytes when the request accepts application/octet-stream',
      content: { 'application/json': { schema: LoadResponseSchema }, [OCTET]: { schema: RawBytesSchema } },
    },
    204: { description: 'No save (a load that accepts application/octet-stream)', type: 'null' },
  } as const

  app.post(
    '/cloud-save/load',
    {
      schema: route.app({
        summary: "Load the player's cloud save (raw bytes with Accept: application/octet-stream)",
        security,
        body: LoadBodySchema,
        response: { ...loadResponses },
        errors: [403, 415],
        docs: {
          description: `Loads the player's save (the newer SDKs' form). ${examples.LOAD}`,
          request: { userId: EX.userId },
          response: examples.loaded,
        },
      }),
      config: { userInStatement: true },
      preHandler: userScopedOrUnknown,
    },
    async (request, reply) => load(request.identity?.userId, request, reply),
  )

  app.get(
    '/cloud-save/load',
    {
      schema: route.app({
        summary: "Load the player's cloud save (older SDKs' form; raw bytes with Accept: application/octet-stream)",
        security,
        querystring: LoadQuerySchema,
        response: { ...loadResponses },
        errors: [403, 415],
        docs: {
          description: `Loads the player's save (the older SDKs' form, \`?userId=\`). ${examples.LOAD}`,
          parameters: { userId: EX.userId },
          response: examples.loaded,
        },
      }),
      config: { userInStatement: true },
      preHandler: userScopedOrUnknown,
    },
    async (request, reply) => load(request.identity?.userId, request, reply),
  )
}

export default cloudSave
