import { present } from '../../platform/schemas/common.js'
import type { SigninBody, SignupBody } from './schemas.js'
import type { AuthDeps, AuthOutcome } from './outcome.js'
import { ProviderUnavailableError } from './jwks.js'
import {
  checkIdToken,
  chosenName,
  claimTrue,
  vouchedEmail,
  derivedName,
  findOrCreateSocialUser,
  invalidCredential,
  localPart,
  missingField,
  notConfigured,
  numberedName,
  providerUnavailable,
} from './social.js'

/**
 * Sign in with Apple: the identity token the app got from Apple is a JWT checked against Apple's keys.
 * No nonce check (no SDK sends the raw nonce) and no single-use rule: the Godot SDK sends the token
 * it signed in with to sign-up as well.
 */
const ISSUER = 'https://appleid.apple.com'
const PRIVATE_RELAY = /@privaterelay\.appleid\.com$/i

/** Sign-up and sign-in with Apple: the identity token is checked against Apple's keys, then the user found or made. */
export async function signInWithApple(deps: AuthDeps, body: SignupBody | SigninBody): Promise<AuthOutcome> {
  const { keys } = deps.social.apple
  // The request's game's audiences (contract §14): a token for another game's app is refused here.
  const audiences = deps.settings.appleAudiences
  if (audiences.length === 0) throw notConfigured('APPLE_NOT_CONFIGURED', 'Apple')
  const token = present(body.appleIdentityToken)
  if (token === undefined) throw missingField('appleIdentityToken')
  // A bad name is the caller's mistake whatever the token: check it before spending a key fetch.
  const username = chosenName(present(body.username))
  let check
  try {
    check = await checkIdToken(token, keys, { issuer: [ISSUER], audience: audiences, now: deps.now() })
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw providerUnavailable('Apple')
    throw error
  }
  if (!check.ok) {
    throw invalidCredential(
      'INVALID_APPLE_TOKEN',
      'The Apple identity token is not valid (bad signature, wrong audience or issuer, or expired); sign in with Apple again',
    )
  }
  const { claims } = check
  const email = vouchedEmail(claims)
  const isPrivateEmail = email !== null && (claimTrue(claims.is_private_email) || PRIVATE_RELAY.test(email))
  return findOrCreateSocialUser(
    deps,
    {
      provider: 'apple',
      subject: claims.sub,
      email,
      isPrivateEmail,
      name: () =>
        username ??
        derivedName(
          [present(body.appleFirstName), present(body.appleLastName)].filter(Boolean).join(' '),
          localPart(email),
        ) ??
        numberedName('Apple'),
    },
    { withRefresh: body.includeRefreshToken === true, conflictCode: 'APPLE_EMAIL_CONFLICT' },
  )
}
