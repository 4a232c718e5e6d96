/**
 * Rate limits and the per-caller list budget high enough never to refuse a benchmark's requests
 * (one admin token sends every list over 64 connections), yet on: their work per request is part
 * of what is measured. `npm run bench:fairness` measures the budget itself.
 */
export const UNLIMITED = { RATE_LIMIT_PER_TOKEN: '1000000', RATE_LIMIT_PER_IP: '1000000', CALLER_CONCURRENCY: '1000' };
