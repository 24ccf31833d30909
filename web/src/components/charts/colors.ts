// The theme's colours for canvas drawing. Canvas cannot read CSS variables (ours are light-dark()
// pairs), so each is resolved through a probe element's computed colour, again when the theme changes.
import { useEffect, useState } from 'react';

/** Series colours in order; each a variable of styles.css. */
export const PALETTE = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5', '--chart-6', '--chart-7', '--chart-8'];

export function resolveColor(variable: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${variable})`;
  probe.style.display = 'none';
  document.body.appendChild(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

/** Changes whenever the page's colours may have: the user's theme choice or the system's scheme. */
export function useThemeKey(): string {
  const read = () => `${document.documentElement.dataset.theme ?? 'system'}:${matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'}`;
  const [key, setKey] = useState(read);
  useEffect(() => {
    const update = () => setKey(read());
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', update);
    return () => {
      observer.disconnect();
      media.removeEventListener('change', update);
    };
  }, []);
  return key;
}
