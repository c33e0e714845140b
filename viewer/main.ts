/** Entry point of the viewer page (index.html): the app shell and its analysis panels. */
import './components/warptrace-app.js';
import './panels/index.js';

// The panels name exports and comparisons after the open file.
const app = document.querySelector('warptrace-app');
const panels = document.querySelector('wt-analysis-panels');
app?.addEventListener('wt-trace-opened', (event) => {
  const name = (event as CustomEvent<{ name: string }>).detail.name;
  if (panels !== null) panels.fileName = name.replace(/\.[^.]*$/, '');
});
