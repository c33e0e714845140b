/** Entry point of the viewer page (index.html). */
import './components/warptrace-app.js';
