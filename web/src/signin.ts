// Signing in as a guest: the "Your name" form, and the header's line
// saying who plays from this browser.
import { alertError, announce, el, field, replace } from "./dom";
import { describeError } from "./errors";
import { type Identity, NAME_RULE, lastName, signIn } from "./identity";

/** The "Your name" form: it signs in a new guest (every tab of the browser
 * becomes it), then calls `signedIn`. */
export function nameForm(options: { intro: string; submit?: string; signedIn?: (who: Identity) => void }): HTMLFormElement {
  const input = el("input", {
    type: "text",
    name: "display-name",
    required: true,
    maxlength: 24,
    autocomplete: "nickname",
    spellcheck: false,
    value: lastName(),
  });
  const submit = el("button", { type: "submit" }, options.submit ?? "Sign in");
  const form = el(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-heading" },
    el("h2", { id: "sign-in-heading" }, "Your name"),
    el("p", {}, options.intro),
    field("Your name", input, NAME_RULE),
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      alertError(null);
      submit.disabled = true;
      try {
        // The server checks the name; its answer says what is wrong with one.
        const who = await signIn(input.value.trim());
        announce(`Signed in as ${who.displayName}.`);
        options.signedIn?.(who);
      } catch (error) {
        alertError(describeError("sign in", error));
        input.focus();
      } finally {
        submit.disabled = false;
      }
    })();
  });
  return form;
}

/** Focuses the page's name field, if it shows one; whether it did. */
export function focusNameField(): boolean {
  const input = document.querySelector<HTMLInputElement>("input[name=display-name]");
  input?.focus();
  return input !== null;
}

/** The header's line: who plays, and a way to sign in (again). */
export function drawIdentity(who: Identity | null): void {
  const line = document.getElementById("identity");
  if (!line) return;
  replace(
    line,
    who ? el("span", {}, "Playing as ", el("strong", { class: "player-name" }, who.displayName)) : el("span", {}, "Not signed in"),
    " ",
    el("a", { href: "#/name" }, who ? "Change name" : "Sign in"),
  );
}
