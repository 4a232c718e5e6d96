import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { describeShiftTypes } from './type-openapi';

/** The document's part for work schedules (CONTRACT 6.7). */
export function describeSchedules(registry: OpenAPIRegistry): void {
  describeShiftTypes(registry);
}
