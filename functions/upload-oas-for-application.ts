import { operation } from '../shared/http/operation.ts';
import { uploadOASForApplicationRoute } from '../shared/routes.ts';
import { uploadDescription } from '../shared/hosted-assets/oas-upload.ts';

export const handler = operation(uploadOASForApplicationRoute, ({ caller, params, rawBody, headers }) =>
  uploadDescription(caller, params.appId, rawBody, headers['content-type']),
);
