// A tiny element builder: the page has no framework, so a 5,000-line document renders fast.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: never) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function')
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}
