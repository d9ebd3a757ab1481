// The clients of the API, generated from protos/ and spoken over the Connect
// protocol on the page's own origin (binary protobuf; server streams too).
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { AIService } from "./gen/meeple/v1/ai_service_pb";
import { ArchiveService } from "./gen/meeple/v1/archive_service_pb";
import { AuthService } from "./gen/meeple/v1/auth_service_pb";
import { MatchService } from "./gen/meeple/v1/match_service_pb";
import { MatchmakingService } from "./gen/meeple/v1/matchmaking_service_pb";
import { RulesService } from "./gen/meeple/v1/rules_service_pb";

/** How long a unary call may take before the page gives up on it with
 * DEADLINE_EXCEEDED (the server sees the deadline too, and stops). */
export const CALL_TIMEOUT_MS = 15_000;
/** A hint's search: the server bounds any bot's thinking to 30 s. */
export const HINT_TIMEOUT_MS = 35_000;

const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  defaultTimeoutMs: CALL_TIMEOUT_MS,
});

export const matches = createClient(MatchService, transport);
export const rules = createClient(RulesService, transport);
export const ai = createClient(AIService, transport);
export const auth = createClient(AuthService, transport);
export const archive = createClient(ArchiveService, transport);
export const matchmaking = createClient(MatchmakingService, transport);

// Calls that act for the player add its bearer token (see identity.ts).

/** Headers that prove a seat (the token MatchService issued for it). */
export function asSeat(token: string): Record<string, string> {
  return { "meeple-seat-token": token };
}

/** Headers that prove the match's owner (CreateMatch's owner token). */
export function asOwner(token: string): Record<string, string> {
  return { "meeple-owner-token": token };
}

/** Headers that prove a matchmaking ticket (CreateTicket's ticket token). */
export function asTicket(token: string): Record<string, string> {
  return { "meeple-ticket-token": token };
}
