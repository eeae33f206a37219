import { operation } from '../shared/http/operation.ts';
import { uploadDescription } from '../shared/hosted-assets/oas-upload.ts';

export const handler = operation<{ appId: string }>('uploadOASForApplication', ({ caller, params, rawBody, headers }) =>
  uploadDescription(caller, params.appId, rawBody!, headers['content-type']),
);
