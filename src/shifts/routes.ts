import type { Clock } from '../clock';
import type { Routes } from '../http/routes';
import { rotationRoutes } from './rotations/rotation-routes';
import { shiftRoutes } from './shift-routes';
import { shiftTypeRoutes } from './type-routes';

/** Every route of work schedules (CONTRACT 6.7): shift types, shifts, rotations. */
export function scheduleRoutes({ clock }: { clock: Clock }): Routes[] {
  return [shiftTypeRoutes({ clock }), ...shiftRoutes({ clock }), rotationRoutes({ clock })];
}
