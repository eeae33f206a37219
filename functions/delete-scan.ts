import { operation } from '../shared/http/operation.ts';
import { deleteScan } from '../shared/scans/results.ts';

export const handler = operation<{ scanId: string }>('deleteScan', ({ caller, params }) => deleteScan(caller, params.scanId));
