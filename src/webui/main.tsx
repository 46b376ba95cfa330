// Browser entry of the dashboard: theme before first paint, then mount the app once the DOM exists.
import { render } from 'preact';
import { App } from './app/App.tsx';
import { Api } from './io/api.ts';
import { applyInitialTheme } from './io/theme.ts';

applyInitialTheme();

function mount(): void {
  const root = document.getElementById('app');
  if (root === null) return;
  root.textContent = '';
  render(<App api={new Api()} />, root);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount, { once: true });
else mount();
