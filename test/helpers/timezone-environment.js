// Jest environment: the node environment with the process's own time zone set for one test file,
// from the file's docblock pragma `@timezone <IANA name>`. The server must not depend on its own
// zone (docs/security.md); these files prove it in a zone other than the one CI happens to run in.
// Restored afterwards, because a worker runs other test files too.
const { TestEnvironment } = require('jest-environment-node');

class TimezoneEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const zone = context.docblockPragmas.timezone;
    if (typeof zone !== 'string' || zone === '') throw new Error(`${context.testPath}: @timezone <IANA name> is required`);
    this.zone = zone;
  }

  async setup() {
    this.previousZone = process.env.TZ;
    // Node re-reads the zone when TZ is assigned, for every context of the process.
    process.env.TZ = this.zone;
    await super.setup();
  }

  async teardown() {
    if (this.previousZone === undefined) delete process.env.TZ;
    else process.env.TZ = this.previousZone;
    await super.teardown();
  }
}

module.exports = TimezoneEnvironment;
