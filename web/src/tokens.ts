// The seat and owner tokens this browser holds, per match, for the tab's
// session (a reload keeps them; they are secrets, so nothing longer-lived).

export interface SeatHeld {
  readonly seat: number;
  readonly token: string;
}

const seatKey = (matchId: string): string => `meeple:seat:${matchId}`;
const ownerKey = (matchId: string): string => `meeple:owner:${matchId}`;

export function heldSeat(matchId: string): SeatHeld | null {
  const raw = sessionStorage.getItem(seatKey(matchId));
  return raw ? (JSON.parse(raw) as SeatHeld) : null;
}

export function holdSeat(matchId: string, held: SeatHeld): void {
  sessionStorage.setItem(seatKey(matchId), JSON.stringify(held));
}

export function ownerToken(matchId: string): string | null {
  return sessionStorage.getItem(ownerKey(matchId));
}

export function holdOwnerToken(matchId: string, token: string): void {
  sessionStorage.setItem(ownerKey(matchId), token);
}
