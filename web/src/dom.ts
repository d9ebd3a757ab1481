// Small DOM helpers: building elements, and the page's two live regions.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

/** An element with attributes (false/null/undefined ones left out) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

/** A button that runs `action` on click. */
export function button(
  label: string,
  action: () => void,
  attributes: Attributes = {},
): HTMLButtonElement {
  const element = el("button", { type: "button", ...attributes }, label);
  element.addEventListener("click", action);
  return element;
}

let fields = 0;

/** A form control with its label (joined by id, so the label names only the
 * control) and an optional hint under it. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  control.id ||= `field-${++fields}`;
  const help = hint ? el("small", { id: `${control.id}-hint` }, hint) : null;
  if (help) control.setAttribute("aria-describedby", help.id);
  return el("div", { class: "field" }, el("label", { for: control.id }, label), control, help);
}

/** A <select> with (value, text) options. */
export function select(
  name: string,
  options: ReadonlyArray<readonly [string, string]>,
  chosen?: string,
): HTMLSelectElement {
  const element = el("select", { name });
  for (const [value, text] of options) {
    element.append(el("option", { value, selected: value === chosen }, text));
  }
  return element;
}

function region(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html has no #${id}`);
  return found;
}

/** Shows an error in the page's alert region (read out at once), or clears it. */
export function alertError(message: string | null): void {
  const alert = region("alert");
  replace(alert, message ?? "");
  alert.hidden = message === null;
}

/** Says something politely (a screen reader reads it when idle). */
export function announce(message: string): void {
  replace(region("status"), message);
}
