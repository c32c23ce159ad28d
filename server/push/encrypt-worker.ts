// The thread of the encryption pool (server/push/encryption-pool.ts): encrypts batches of messages with
// RFC 8291 and answers each with the bodies to post, or the error that made a message unsendable.
import { parentPort } from 'node:worker_threads';
import { isServerError } from '../errors.ts';
import { encryptPayload } from './encrypt.ts';
import type { EncryptedBatch, EncryptionBatch } from './encryption-pool.ts';

parentPort!.on('message', (batch: EncryptionBatch) => {
  const count = batch.length / 3;
  const bodies: Buffer[] = [];
  const lengths: number[] = new Array(count);
  let errors: EncryptedBatch['errors'];
  let total = 0;
  for (let index = 0; index < count; index += 1) {
    try {
      const keys = { p256dh: batch[index * 3 + 1] as string, auth: batch[index * 3 + 2] as string };
      const body = encryptPayload(batch[index * 3]!, keys);
      bodies.push(body);
      lengths[index] = body.length;
      total += body.length;
    } catch (error) {
      const tooLarge = isServerError(error, 'E_PAYLOAD_TOO_LARGE') ? error.details.size : undefined;
      (errors ??= []).push({ index, error: (error as Error).message, tooLarge });
      lengths[index] = 0;
    }
  }
  // one buffer of its own (not a slice of Node's shared pool), handed over to the main thread without a copy
  const joined = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  for (const body of bodies) offset += body.copy(joined, offset);
  const answer: EncryptedBatch = { bodies: joined.buffer, lengths, ...(errors ? { errors } : {}) };
  parentPort!.postMessage(answer, [joined.buffer]);
});
