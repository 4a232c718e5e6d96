import type { Response } from 'express';

/**
 * Writes to a response as a producer makes chunks, resolving each write once the client has
 * taken enough that another may follow (back-pressure), so a long stream's memory stays flat.
 * A write after the client went away rejects, which stops the producer.
 */
export function responseSink(res: Response): { write(chunk: string): Promise<void> } {
  return {
    write: (chunk) => {
      if (res.destroyed) return Promise.reject(new Error('The client went away during the stream'));
      if (res.write(chunk)) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
  };
}
