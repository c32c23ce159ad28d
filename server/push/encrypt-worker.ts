// The thread of the encryption pool (server/push/encryption-pool.ts): encrypts batches of messages with
// RFC 8291 and answers each with the body to post, or the error that made it unsendable.
import { parentPort } from 'node:worker_threads';
import { isServerError } from '../errors.ts';
import { encryptPayload } from './encrypt.ts';
import type { EncryptionJob, EncryptionOutcome } from './encryption-pool.ts';

parentPort!.on('message', (jobs: EncryptionJob[]) => {
  const outcomes = jobs.map((job): EncryptionOutcome => {
    try {
      return { id: job.id, body: encryptPayload(job.payload, job.keys) };
    } catch (error) {
      const tooLarge = isServerError(error, 'E_PAYLOAD_TOO_LARGE') ? error.details.size : undefined;
      return { id: job.id, error: (error as Error).message, tooLarge };
    }
  });
  parentPort!.postMessage(outcomes);
});
