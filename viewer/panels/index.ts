/** The analysis panels, standalone lit components (properties down, events up): import to define them. */
export { WtStatsPanel, type StatsTab } from './wt-stats-panel.js';
export { WtFindingsList } from './wt-findings-list.js';
export { WtExportButtons, type ExportDetail, type ExportFormat } from './wt-export-buttons.js';
export { WtComparePanel } from './wt-compare-panel.js';
export { ZOOM_TO_EVENT, zoomToEvent, type ZoomToDetail } from './zoom-event.js';
export { WtShaderPanel } from './wt-shader-panel.js';
export { WtAnalysisPanels } from './wt-analysis-panels.js';
export { WtPassesPanel } from './wt-passes-panel.js';
export { WtPassIcicle } from './wt-pass-icicle.js';
export { WtDrawsTable } from './wt-draws-table.js';
export { WtThresholds } from './wt-thresholds.js';
