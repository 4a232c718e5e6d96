// Jest reporter: ends every run with which databases the integration tests ran on, so a run that
// skipped MySQL can never be mistaken for a full one.
class DatabaseReport {
  onRunComplete() {
    // No global setup ran: a project with no test to run (npm test with a file of the other one).
    if (process.env.HRM_TEST_MYSQL_URL === undefined) return;
    const skipped = process.env.HRM_TEST_MYSQL_SKIPPED;
    const line = skipped
      ? `\n*** MySQL integration tests SKIPPED: ${skipped}. Only SQLite was tested. ***\n`
      : `\nIntegration tests ran on SQLite and on MySQL (${process.env.HRM_TEST_MYSQL_VERSION}).\n`;
    process.stderr.write(line);
  }
}
module.exports = DatabaseReport;
