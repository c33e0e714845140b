/** Entry point of the viewer page (index.html): the app shell and its analysis panels. */
import './components/warptrace-app.js';
import { nextTask } from './base/tasks.js';

// The analysis panels are evaluated in a task of their own after the app's (the element in
// index.html upgrades then, keeping what the app gave it): one long task less on a cold page.
void nextTask().then(() => import('./panels/index.js'));

// The panels name exports and comparisons after the open file.
const app = document.querySelector('warptrace-app');
const panels = document.querySelector('wt-analysis-panels');
app?.addEventListener('wt-trace-opened', (event) => {
  const name = (event as CustomEvent<{ name: string }>).detail.name;
  if (panels !== null) panels.fileName = name.replace(/\.[^.]*$/, '');
});
