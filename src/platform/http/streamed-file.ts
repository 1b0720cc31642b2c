import type { Request, Response } from 'express';

/**
 * An answer that is a file rather than JSON (a CSV report): its media type,
 * the name a browser saves it under, and its text as chunks, written as they
 * come so that memory stays bounded however long the file is.
 */
export class StreamedFile {
  constructor(
    readonly mediaType: string,
    readonly fileName: string,
    readonly chunks: AsyncIterable<string>,
  ) {}
}

/**
 * Until the client has read what was written, or gone. Both listeners go
 * when either fires: a long file waits thousands of times, and a listener
 * left behind by each wait would pile up on the response.
 */
function drainedOrClosed(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/**
 * Writes the file, waiting whenever the client reads slower than it is made.
 * The first chunk is read before anything is sent: a failure reading it
 * is still an ErrorMessage. A failure after that cannot change a status
 * already sent, so it ends the connection without the last chunk, which a
 * client reads as a cut-off transfer, never as a complete file.
 */
export async function sendStreamedFile(request: Request, response: Response, status: number, file: StreamedFile): Promise<void> {
  response.status(status);
  // The ETag, set by the caller, names the file: a client that holds it is told so without a byte read.
  if (request.fresh) {
    response.status(304).end();
    return;
  }
  const iterator = file.chunks[Symbol.asyncIterator]();
  let next = await iterator.next();
  response.setHeader('Content-Type', `${file.mediaType}; charset=utf-8`);
  response.setHeader('Content-Disposition', `attachment; filename="${file.fileName}"`);
  try {
    while (next.done !== true) {
      if (response.destroyed) {
        await iterator.return?.();
        return;
      }
      if (!response.write(next.value)) await drainedOrClosed(response);
      next = await iterator.next();
    }
    response.end();
  } catch (error) {
    response.destroy();
    throw error;
  }
}
