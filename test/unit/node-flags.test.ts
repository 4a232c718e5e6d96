import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS, withServerNodeFlags } from '../../src/node-flags';

const root = path.join(__dirname, '..', '..');

describe('the server Node flags', () => {
  it('are added to a command line that lacks them, before its own options', () => {
    expect(withServerNodeFlags(['--enable-source-maps'])).toEqual([...SERVER_NODE_FLAGS, '--enable-source-maps']);
  });

  it('leave an option the command line already sets alone', () => {
    expect(withServerNodeFlags(['--max-semi-space-size=32'])).toEqual(['--max-semi-space-size=32']);
  });

  it('are what npm start and the systemd unit (deploy/hrm-api.service) run the server with', () => {
    const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const execStart = /^ExecStart=(.*)$/m.exec(fs.readFileSync(path.join(root, 'deploy', 'hrm-api.service'), 'utf8'))?.[1];

    expect(start).toContain(`node ${SERVER_NODE_FLAGS.join(' ')} dist/src/main.js`);
    expect(execStart).toBe(`/usr/bin/node ${SERVER_NODE_FLAGS.join(' ')} dist/src/main.js`);
  });
});
