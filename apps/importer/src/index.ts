// Public surface of @pits/importer: the command line as a function, each import as a function,
// and the demo loader `npm start` uses. Importing this module runs nothing.
export { runCli, defaultReportPath, EXIT_OK, EXIT_REJECTED, EXIT_FATAL, type CliIo } from './cli.js';
export { loadImporterConfig, type ImporterConfig } from './config.js';
export { importAreasFile, CANONICAL_HEADER } from './commands/import-areas.js';
export { importIdnAreaData, idnAreaDataDirectory } from './commands/import-idn-area-data.js';
export { importProductsFile, productFormatOf, type ProductFormat } from './commands/import-products.js';
export { importStockFile } from './commands/import-stock.js';
export { FatalImportError, type ImportContext, type ImportSummary } from './commands/import-run.js';
export { loadDemoAreas } from './demo-areas.js';
export { createProgress, silentProgress, type ProgressSink } from './progress/progress-reporter.js';
export { createRejectReport, describeRejection, type RejectReport, type RowIssue, type RowSource } from './report/reject-report.js';
