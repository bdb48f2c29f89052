// Light or dark: the system's choice until the person picks one, which the page remembers.
const KEY = 'md-review-theme';

function apply(theme: 'light' | 'dark'): void {
  document.documentElement.dataset.theme = theme;
}

export function initTheme(): void {
  const asked = new URLSearchParams(location.search).get('theme');
  const saved = asked ?? localStorage.getItem(KEY);
  if (saved === 'light' || saved === 'dark') apply(saved);
  else apply(matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
}

export function toggleTheme(): void {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  apply(next);
  localStorage.setItem(KEY, next);
}
