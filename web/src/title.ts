// The tab's title: whose turn it is in the match on screen ("Your turn —
// Rolit", "Rolit — Black to play", "Rolit — game over"), "meeple" elsewhere.

export const HOME_TITLE = "meeple";

export function setTitle(title: string): void {
  if (document.title !== title) document.title = title;
}

/** Back to the page's own title (leaving a match). */
export function resetTitle(): void {
  setTitle(HOME_TITLE);
}
