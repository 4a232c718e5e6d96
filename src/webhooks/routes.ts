import type { Request } from 'express';
import { z } from 'zod';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { optionalJsonObject, requireJsonObject } from '../http/json-body';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { pathId } from '../http/params';
import { parseBody, parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import type { Db } from '../db/connect';
import type { UrlPolicy } from './addresses';
import { RETRY_WINDOW_MS } from './outbox';
import {
  deleteSubscription,
  findDelivery,
  findSubscription,
  listAttempts,
  listDeliveries,
  listSubscriptions,
  requeueDelivery,
  type Subscription,
} from './repository';
import {
  changeWebhook,
  checkWebhookUrl,
  createWebhook,
  createWebhookSchema,
  rotateWebhookSecret,
  toDeliveryResponse,
  toDeliveryWithAttemptsResponse,
  toWebhookResponse,
  updateWebhookSchema,
} from './subscriptions';

/** rotate-secret and retry take no fields: a body, if sent, must be {}. */
const noBody = z.strictObject({});
const listQuery = z.strictObject(paginationFields({ defaultLimit: 50, maxLimit: 200 }));
const deliveriesQuery = z.strictObject({
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
  status: z.enum(['pending', 'delivered', 'failed'], { error: 'must be pending, delivered or failed' }).optional(),
});

/** The webhook policy of the configuration: which receiver URLs are allowed. */
export function urlPolicyOf(config: Pick<Config, 'webhooks'>): UrlPolicy {
  return { allowHttp: config.webhooks.allowHttp, allowPrivate: config.webhooks.allowPrivate };
}

/**
 * /webhooks (admins only): subscriptions, their secrets (shown on create and rotation only),
 * their deliveries (each with its attempts) and a retry. Receiver URLs are checked (scheme, and every address the host
 * resolves to) before the write's transaction.
 */
export function webhookRoutes({ clock, config }: { clock: Clock; config: Pick<Config, 'webhooks'> }): Routes {
  const policy = urlPolicyOf(config);
  const requireAdmin = (req: Request) => {
    if (callerOf(req).role !== 'admin') throw new ForbiddenError({ detail: 'Only admins may manage webhooks' });
  };
  const subscriptionOf = async (db: Db, req: Request): Promise<Subscription> => {
    const found = await findSubscription(db, pathId(req.params.id, 'webhook'));
    if (!found) throw new NotFoundError({ detail: 'No such webhook' });
    return found;
  };

  return new Routes('/webhooks')
    .route('/', {
      get: async (req, res) => {
        requireAdmin(req);
        const query = parseQuery(listQuery, req.query);
        const { rows, total } = await listSubscriptions(instanceOf(req).db, {
          limit: query.limit,
          offset: offsetOf(query.page, query.limit),
        });
        sendJson(res, toPage(rows.map(toWebhookResponse), total, query.page, query.limit));
      },
      post: async (req, res) => {
        requireAdmin(req);
        const input = parseBody(createWebhookSchema, requireJsonObject(req));
        input.url = await checkWebhookUrl(input.url, policy);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const { subscription, secret } = await createWebhook(trx, input, now);
          return {
            status: 201,
            headers: { Location: `${req.baseUrl}/${subscription.id}` },
            body: { ...toWebhookResponse(subscription), secret },
            secret: true,
          };
        });
      },
    })
    .route('/:id', {
      get: async (req, res) => {
        requireAdmin(req);
        sendJson(res, toWebhookResponse(await subscriptionOf(instanceOf(req).db, req)));
      },
      patch: async (req, res) => {
        requireAdmin(req);
        const input = parseBody(updateWebhookSchema, requireJsonObject(req));
        if (input.url !== undefined) input.url = await checkWebhookUrl(input.url, policy);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => ({
          status: 200,
          body: toWebhookResponse(await changeWebhook(trx, await subscriptionOf(trx, req), input, now)),
        }));
      },
      delete: async (req, res) => {
        requireAdmin(req);
        const id = pathId(req.params.id, 'webhook');
        await sendWrite(req, res, clock.now(), async (trx) => {
          if (!(await deleteSubscription(trx, id))) throw new NotFoundError({ detail: 'No such webhook' });
          return { status: 200, body: { id: String(id) } };
        });
      },
    })
    .route('/:id/rotate-secret', {
      post: async (req, res) => {
        requireAdmin(req);
        parseBody(noBody, optionalJsonObject(req));
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const { subscription, secret } = await rotateWebhookSecret(trx, await subscriptionOf(trx, req), now);
          return { status: 200, body: { ...toWebhookResponse(subscription), secret }, secret: true };
        });
      },
    })
    .route(
      '/:id/deliveries',
      {
        get: async (req, res) => {
          requireAdmin(req);
          const query = parseQuery(deliveriesQuery, req.query);
          const { db } = instanceOf(req);
          const subscription = await subscriptionOf(db, req);
          const { rows, total } = await listDeliveries(db, subscription.id, {
            status: query.status,
            limit: query.limit,
            offset: offsetOf(query.page, query.limit),
          });
          sendJson(res, toPage(rows.map(toDeliveryResponse), total, query.page, query.limit));
        },
      },
      { heavy: true },
    )
    .route('/:id/deliveries/:delivery', {
      get: async (req, res) => {
        requireAdmin(req);
        const { db } = instanceOf(req);
        const subscription = await subscriptionOf(db, req);
        const delivery = await findDelivery(db, subscription.id, pathId(req.params.delivery, 'delivery'));
        if (!delivery) throw new NotFoundError({ detail: 'No such delivery' });
        sendJson(res, toDeliveryWithAttemptsResponse(delivery, await listAttempts(db, delivery.id)));
      },
    })
    .route('/:id/deliveries/:delivery/retry', {
      post: async (req, res) => {
        requireAdmin(req);
        parseBody(noBody, optionalJsonObject(req));
        const deliveryId = pathId(req.params.delivery, 'delivery');
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const subscription = await subscriptionOf(trx, req);
          const delivery = await findDelivery(trx, subscription.id, deliveryId);
          if (!delivery) throw new NotFoundError({ detail: 'No such delivery' });
          if (!subscription.active) {
            throw new ConflictError({
              code: 'webhook_inactive',
              detail: 'The webhook is not active: turn it on (PATCH {"active": true}) first',
            });
          }
          await requeueDelivery(trx, delivery.id, now, new Date(now.getTime() + RETRY_WINDOW_MS));
          const requeued = await findDelivery(trx, subscription.id, deliveryId);
          return { status: 202, body: toDeliveryResponse(requeued ?? delivery) };
        });
      },
    });
}
