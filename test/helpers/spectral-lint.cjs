// `spectral lint` over one document, once per ruleset, in one process: the CLI's own linter
// (its ruleset loading, resolver and parser), whose modules then load once rather than per ruleset.
// Usage: node spectral-lint.cjs <document> <ruleset>...
// Prints a JSON array with, per ruleset in order, its findings of every severity.
'use strict';

const { lint } = require('@stoplight/spectral-cli/dist/services/linter/linter');

async function main() {
  const [document, ...rulesets] = process.argv.slice(2);
  const findings = [];
  // One after the other: each run's work is synchronous, so running them together would gain nothing.
  for (const ruleset of rulesets) {
    const { results } = await lint([document], {
      ruleset,
      format: ['json'],
      encoding: 'utf8',
      ignoreUnknownFormat: false,
      failOnUnmatchedGlobs: false,
      showDocumentationUrl: false,
      quiet: true,
    });
    findings.push(results.map(({ code, path, severity, message }) => ({ code, path, severity, message })));
  }
  process.stdout.write(JSON.stringify(findings));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 2;
});
