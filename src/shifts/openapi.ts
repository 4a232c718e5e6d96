import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { describeRotations } from './rotations/rotation-openapi';
import { describeShifts } from './shift-openapi';
import { describeShiftTypes } from './type-openapi';

export { shiftSchema } from './shift-openapi';

/** The document's part for work schedules (CONTRACT 6.7). */
export function describeSchedules(registry: OpenAPIRegistry): void {
  describeShiftTypes(registry);
  describeShifts(registry);
  describeRotations(registry);
}
