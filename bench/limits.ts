/**
 * Rate limits high enough never to refuse a benchmark's requests, yet on: the limiter's work per
 * request is part of what is measured.
 */
export const UNLIMITED = { RATE_LIMIT_PER_TOKEN: '1000000', RATE_LIMIT_PER_IP: '1000000' };
