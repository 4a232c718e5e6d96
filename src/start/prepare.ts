import type { Config } from '../config';
import { ServiceUnavailableError } from '../errors';
import { listRegisteredInstances } from '../instances/registry';
import type { Logger } from '../logger';
import { open, type Opened } from './open';
import { announceLateFirstAdmin, firstAdminNotice, type StartNotes } from './start-messages';

/**
 * Once per start, before serving: migrations, the first admin (self-hosted) or the control
 * database (cloud). With WORKERS > 1 only the primary does it, so workers never race for it. A
 * database that does not answer does not stop the start: the server answers 503 until it does.
 */
export async function prepare(config: Config, logger: Logger): Promise<{ opened: Opened; notes: StartNotes }> {
  const notes: StartNotes = {};
  let preparing = true;
  // Told in the start message when the database answers now; on its own once it answers later.
  const opened = open(config, logger, (firstAdmin) => {
    if (preparing) notes.firstAdmin = firstAdminNotice(config, firstAdmin);
    else announceLateFirstAdmin(config, firstAdmin);
  });
  try {
    await opened.instances.checkReady();
    if (opened.control) {
      // Cloud: instances are created by "hrm instance create", never by starting the server.
      notes.instanceCount = (await listRegisteredInstances(opened.control)).length;
    } else {
      const { instance } = (await opened.instances.acquire(undefined)) ?? {};
      notes.apiEnabled = instance && (await instance.settings.get()).restApiEnabled;
    }
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) {
      await opened.close();
      throw error;
    }
    notes.databaseUnavailable = true;
  }
  preparing = false;
  return { opened, notes };
}
