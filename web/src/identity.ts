// Who plays from this browser: a guest session of AuthService (SignInGuest),
// kept in localStorage so that every tab of the browser is the same player.
// Acting calls carry its access token ("authorization: Bearer ..."), which
// is refreshed (RefreshSession) shortly before it expires, and once more
// when the server refuses it as UNAUTHENTICATED. A refresh token that has
// expired, or that the server refuses, ends the session: the person
// chooses a name again (a new guest).
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { auth } from "./api";
import { errorCode } from "./errors";
import type { Session } from "./gen/meeple/v1/auth_service_pb";

/** The signed-in player. */
export interface Identity {
  readonly playerId: string;
  readonly displayName: string;
}

interface Stored extends Identity {
  readonly accessToken: string;
  /** When the access token stops working, in ms since the epoch. */
  readonly accessExpires: number;
  readonly refreshToken: string;
  readonly refreshExpires: number;
  /** When this tab's clock saw the access token arrive (ms since the epoch). */
  readonly received?: number;
}

/** The session, shared by the browser's tabs (a secret: it is the identity). */
export const SESSION_KEY = "meeple:session";
/** The last name signed in with, to offer it again. */
const NAME_KEY = "meeple:name";
/** An access token with less than this left is refreshed before use. */
const REFRESH_AHEAD_MS = 60_000;
/** Refreshes in the background start up to this much earlier still, so
 * that the tabs of a browser do not all refresh at the same moment. */
const REFRESH_SPREAD_MS = 10_000;
/** After a refresh that failed for want of the server, try again this soon. */
const REFRESH_RETRY_MS = 15_000;
/** RefreshSession answers that mean the refresh token will never work. */
const REFUSED = new Set([Code.Unauthenticated, Code.InvalidArgument, Code.PermissionDenied, Code.FailedPrecondition]);

/** The rule the server applies to display names (AuthService.SignInGuest). */
export const NAME_RULE = "1 to 24 letters, digits, spaces and - _ . ' (no space at either end)";

function read(): Stored | null {
  let raw: unknown;
  try {
    raw = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
  } catch {
    return null;
  }
  if (typeof raw !== "object" || raw === null) return null;
  const s = raw as Record<string, unknown>;
  const strings = ["playerId", "displayName", "accessToken", "refreshToken"].every((k) => typeof s[k] === "string" && s[k] !== "");
  const numbers = ["accessExpires", "refreshExpires"].every((k) => typeof s[k] === "number");
  return strings && numbers ? (raw as Stored) : null;
}

function stored(session: Session | undefined): Stored {
  if (!session?.identity || !session.accessExpireTime || !session.refreshExpireTime) {
    throw new ConnectError("the server sent an incomplete session", Code.Internal);
  }
  return {
    playerId: session.identity.playerId,
    displayName: session.identity.displayName,
    accessToken: session.accessToken,
    accessExpires: timestampMs(session.accessExpireTime),
    refreshToken: session.refreshToken,
    refreshExpires: timestampMs(session.refreshExpireTime),
    received: Date.now(),
  };
}

/** How long before its expiry a session's access token is refreshed: a
 * minute, or a quarter of its lifetime if that is shorter. */
function aheadMs(session: Stored): number {
  const lifetime = session.received === undefined ? Infinity : session.accessExpires - session.received;
  return Math.min(REFRESH_AHEAD_MS, Math.max(0, lifetime / 4));
}

/** Whether an access token has more than its margin left. */
const fresh = (session: Stored): boolean => session.accessExpires - Date.now() > aheadMs(session);

// --- who is signed in, and who wants to know ---------------------------------------

type Listener = (now: Identity | null) => void;
const listeners: Listener[] = [];
let known: Identity | null = identityOf(read());

function identityOf(session: Stored | null): Identity | null {
  return session ? { playerId: session.playerId, displayName: session.displayName } : null;
}

/** The signed-in player, or null. */
export function identity(): Identity | null {
  return identityOf(read());
}

/** The name to offer in the sign-in form: the current or the last one. */
export function lastName(): string {
  return read()?.displayName ?? localStorage.getItem(NAME_KEY) ?? "";
}

/** Calls `listener` whenever the player (or its name) changes, in this tab
 * or in another of the browser's. */
export function onIdentityChange(listener: Listener): void {
  listeners.push(listener);
}

/** Tells the listeners if the player changed since they last heard, and
 * plans the next refresh. */
function changed(): void {
  schedule();
  const now = identity();
  if (now?.playerId === known?.playerId && now?.displayName === known?.displayName) return;
  known = now;
  for (const listener of listeners) listener(now);
}

function save(session: Stored): Stored {
  localStorage.setItem(SESSION_KEY, JSON.stringify(session));
  localStorage.setItem(NAME_KEY, session.displayName);
  changed();
  return session;
}

/** Forgets `session` (only if it is still the stored one: another tab may
 * have signed in again meanwhile). */
function drop(session: Stored): void {
  if (read()?.refreshToken === session.refreshToken) localStorage.removeItem(SESSION_KEY);
  changed();
}

window.addEventListener("storage", (event) => {
  if (event.key === SESSION_KEY || event.key === null) changed();
});

// --- signing in and refreshing -----------------------------------------------------

/** A new guest named `displayName`: every tab of the browser becomes it. */
export async function signIn(displayName: string): Promise<Identity> {
  const answer = await auth.signInGuest({ displayName });
  return identityOf(save(stored(answer.session)))!;
}

/** An acting call's failure for want of a session: the person signs in. */
export function signInNeeded(reason: string): ConnectError {
  return new ConnectError(`${reason}: choose your name to sign in`, Code.Unauthenticated);
}

/** Runs `task` while no other tab of the browser runs one (Web Locks,
 * where the page is a secure context; elsewhere each tab on its own). */
async function exclusively<T>(task: () => Promise<T>): Promise<T> {
  const locks = (navigator as { locks?: LockManager }).locks;
  return locks ? ((await locks.request("meeple:refresh-session", task)) as T) : task();
}

let refreshing: Promise<Stored> | null = null;

/** A session newer than `stale`: another tab's if it refreshed meanwhile,
 * else RefreshSession's. A refused or expired refresh token ends the session. */
function refreshed(stale: Stored): Promise<Stored> {
  refreshing ??= exclusively(async () => {
    const current = read();
    if (current === null) throw signInNeeded("you signed out");
    if (current.accessToken !== stale.accessToken && fresh(current)) return current;
    if (current.refreshExpires <= Date.now()) {
      drop(current);
      throw signInNeeded("your sign-in has expired");
    }
    try {
      const answer = await auth.refreshSession({ refreshToken: current.refreshToken });
      return save(stored(answer.session));
    } catch (error) {
      if (!REFUSED.has(errorCode(error))) throw error;
      drop(current);
      throw signInNeeded(`the server refused your sign-in (${ConnectError.from(error).rawMessage})`);
    }
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** The session to act with now: refreshed first when it is about to expire. */
async function usable(): Promise<Stored> {
  const current = read();
  if (current === null) throw signInNeeded("you are not signed in");
  if (fresh(current)) return current;
  try {
    return await refreshed(current);
  } catch (error) {
    // The server cannot be reached: a token that still works is worth a try.
    if (errorCode(error) !== Code.Unauthenticated && current.accessExpires > Date.now()) return current;
    throw error;
  }
}

type Headers = Record<string, string>;
const bearer = (session: Stored): Headers => ({ authorization: `Bearer ${session.accessToken}` });

/** Makes a call that acts for the player: with its bearer token (and
 * `headers`); a token the server refuses is refreshed and the call made
 * once more. Unauthenticated without a session. */
export async function asPlayer<T>(call: (options: { headers: Headers }) => Promise<T>, headers: Headers = {}): Promise<T> {
  const session = await usable();
  try {
    return await call({ headers: { ...headers, ...bearer(session) } });
  } catch (error) {
    if (errorCode(error) !== Code.Unauthenticated) throw error;
    const again = await refreshed(session);
    return await call({ headers: { ...headers, ...bearer(again) } });
  }
}

/** `headers` with the player's bearer token, if it is signed in (for calls
 * that a seat token proves, and that need no identity). */
export async function withPlayer(headers: Headers): Promise<{ headers: Headers }> {
  try {
    return { headers: { ...headers, ...bearer(await usable()) } };
  } catch {
    return { headers };
  }
}

// --- refreshing in the background --------------------------------------------------

let timer: ReturnType<typeof setTimeout> | undefined;

/** Plans the next refresh, a little before the access token expires. */
function schedule(retryMs?: number): void {
  clearTimeout(timer);
  const current = read();
  if (current === null) return;
  const ahead = aheadMs(current);
  const due = current.accessExpires - ahead - Math.random() * Math.min(REFRESH_SPREAD_MS, ahead) - Date.now();
  const wait = Math.min(Math.max(retryMs ?? due, 0), 2 ** 31 - 1);
  timer = setTimeout(() => {
    const now = read();
    if (now === null) return;
    if (now.accessExpires - Date.now() > aheadMs(now) + REFRESH_SPREAD_MS) {
      schedule(); // another tab refreshed it
      return;
    }
    refreshed(now).then(
      () => schedule(),
      (error: unknown) => {
        if (errorCode(error) !== Code.Unauthenticated) schedule(REFRESH_RETRY_MS);
      },
    );
  }, wait);
}

schedule();
