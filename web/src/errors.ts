// Turning any failure into a sentence a person can act on: the server's
// reason with what its status code means.
import { Code, ConnectError } from "@connectrpc/connect";

const MEANINGS: Partial<Record<Code, string>> = {
  [Code.InvalidArgument]: "the request was malformed",
  [Code.FailedPrecondition]: "not allowed now",
  [Code.Aborted]: "the match moved on meanwhile; try again",
  [Code.NotFound]: "no such match (or it expired)",
  [Code.Unauthenticated]: "not signed in, or no seat held here",
  [Code.PermissionDenied]: "that seat is not yours",
  [Code.ResourceExhausted]: "too many requests; wait a moment",
  [Code.OutOfRange]: "the match is over",
  [Code.Unavailable]: "the server cannot be reached",
  [Code.DeadlineExceeded]: "the server took too long",
  [Code.Canceled]: "cancelled",
  [Code.Internal]: "the server failed",
  [Code.Unknown]: "unexpected failure",
};

/** The gRPC name of a code, as the server logs it (FAILED_PRECONDITION). */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** "Could not <doing>: <reason> (FAILED_PRECONDITION: not allowed now)". */
export function describeError(doing: string, error: unknown): string {
  const connect = ConnectError.from(error);
  const meaning = MEANINGS[connect.code] ?? "";
  const reason = connect.rawMessage || meaning;
  return `Could not ${doing}: ${reason} (${codeName(connect.code)}${meaning && reason !== meaning ? `: ${meaning}` : ""}).`;
}

export function errorCode(error: unknown): Code {
  return ConnectError.from(error).code;
}
