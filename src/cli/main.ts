#!/usr/bin/env node
import dotenv from 'dotenv';
import { systemClock } from '../clock';
import { runCli } from './program';

dotenv.config({ quiet: true });

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, readStdin, clock: systemClock }).then(
  (code) => {
    process.exitCode = code;
  },
);
