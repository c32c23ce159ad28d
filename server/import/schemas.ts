// What POST sites/:name/imports takes (the file is the body; format and dry run in the query) and answers.
import { z } from 'zod';
import { isVapidKeyId } from '../keys/index.ts';
import { flagText, optionalText } from '../http/params.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import {
  IMPORT_FORMAT_CHOICES,
  IMPORT_FORMATS,
  type ImportProblem,
  type ImportQuery,
  type ImportReport,
  type ImportVapidKeyRequest,
} from '../../contract/imports.ts';

export const importQuery = z
  .object({
    format: optionalText(z.enum(IMPORT_FORMAT_CHOICES, { error: `must be one of ${IMPORT_FORMAT_CHOICES.join(', ')}` })),
    dryRun: optionalText(flagText),
    vapidKeyId: optionalText(z.string().refine(isVapidKeyId, "must be the id of a key on the site's ring (push-kit keys vapid)")),
  } satisfies Record<keyof ImportQuery, z.ZodType>)
  .strict();

const problem = z.object(fieldsOf<ImportProblem>()({ line: z.number(), code: z.string(), reason: z.string() }));

export const IMPORT_REPLY = successReply({
  report: z.object(
    fieldsOf<ImportReport>()({
      format: z.enum(IMPORT_FORMATS),
      dryRun: z.boolean(),
      rows: z.number(),
      imported: z.number(),
      existing: z.number(),
      rekeyed: z.number(),
      invalid: z.number(),
      problems: z.array(problem),
      ignoredColumns: z.array(z.string()),
      segmentsCreated: z.array(z.string()),
      vapidKeyId: z.string().nullable(),
      bytes: z.number(),
      durationMs: z.number(),
    }),
  ),
});

/** The previous service's key pair, as its file holds it (url-safe base64); addLegacyVapidKey checks it can sign. */
export const importVapidKeyBody = z
  .object({ publicKey: z.string().max(128), privateKey: z.string().max(64) } satisfies Record<keyof ImportVapidKeyRequest, z.ZodType>)
  .strict();

export const IMPORT_VAPID_KEY_REPLY = successReply({ keyId: z.string(), current: z.boolean() });
