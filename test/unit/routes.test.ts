// The route table against its handlers: each route is served by functions/<operationId in kebab case>.ts, which
// hands operation() that very route; and a handler that disagrees with its route's path or schemas does not compile.
// The `@ts-expect-error` lines below are checked by `tsc --noEmit -p .` (part of `npm test`): were the input typed
// loosely again, each would be an unused directive, which tsc reports as an error.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as table from '../../shared/routes.ts';
import {
  createTeamRoute,
  getApplicationRoute,
  importScanReportRoute,
  listScansRoute,
  reportScanAlertsRoute,
  routes,
  toggleAppPluginRoute,
} from '../../shared/routes.ts';
import { handlerFile, type PathParameterName, type Route } from '../../shared/http/route.ts';
import { operation } from '../../shared/http/operation.ts';

const FUNCTIONS = new URL('../../functions/', import.meta.url);
/** Functions that serve no route: queue consumers, schedules and event rules (infra/stack.ts declares them). */
const NOT_ROUTES = [
  'connect-wake-channel',
  'deliver-webhooks',
  'disconnect-wake-channel',
  'end-stopped-runner-scans',
  'expire-risk-acceptances',
  'notify-overdue-findings',
  'relay-webhooks',
  'run-scheduled-scan',
  'service',
  'sweep-stopped-writes',
];

describe('the route table and functions/', () => {
  const exported = Object.entries(table).filter(([name]) => name.endsWith('Route')) as [string, Route][];

  it('lists every exported route in `routes` once, with distinct operationIds and handler files', () => {
    expect(new Set(routes).size).toBe(routes.length);
    expect(exported.map(([, route]) => route).sort(byId)).toEqual([...routes].sort(byId));
    expect(new Set(routes.map((route) => route.operationId)).size).toBe(routes.length);
    expect(new Set(routes.map(handlerFile)).size).toBe(routes.length);
  });

  it('serves each route from functions/<operationId in kebab case>.ts, which hands operation() that route', () => {
    expect(handlerFile(table.uploadOASForApplicationRoute)).toBe('upload-oas-for-application');
    expect(handlerFile(table.listEnvsV2Route)).toBe('list-envs-v2');
    const files = readdirSync(FUNCTIONS)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.slice(0, -'.ts'.length));
    expect(files.filter((file) => !NOT_ROUTES.includes(file)).sort()).toEqual(routes.map(handlerFile).sort());
    for (const [name, route] of exported) {
      const source = readFileSync(new URL(`${handlerFile(route)}.ts`, FUNCTIONS), 'utf8');
      expect(source, handlerFile(route)).toMatch(new RegExp(`\\boperation\\(\\s*${name}\\b`));
    }
  });
});

describe("a handler's input is typed by its route", () => {
  it('names the path parameters of the path, as a type', () => {
    const names: PathParameterName<'/api/v1/org/{orgId}/app/{appId}/env/{envId}/trends'>[] = [
      'orgId',
      'appId',
      'envId',
    ];
    // @ts-expect-error the path has no {scanId}
    const missing: PathParameterName<'/api/v1/org/{orgId}/app/{appId}'> = 'scanId';
    expect([...names, missing]).toHaveLength(4);
  });

  it('compiles the handlers that agree with their routes (input and answer), and none that does not', () => {
    const handlers = [
      operation(getApplicationRoute, async ({ params }) => ({ applicationId: params.appId })),
      // @ts-expect-error getApplication answers an application, not a list (its route's answer in openapi.json)
      operation(getApplicationRoute, async ({ params }) => ({ applications: [params.appId] })),
      // @ts-expect-error an application's name is text, not a flag
      operation(getApplicationRoute, async () => ({ name: true })),
      // @ts-expect-error /api/v1/app/{appId} has no {orgId}
      operation(getApplicationRoute, async ({ params }) => ({ id: params.orgId })),
      // @ts-expect-error getApplication takes no body
      operation(getApplicationRoute, async ({ body }) => ({ name: body.name })),
      // @ts-expect-error getApplication takes no query
      operation(getApplicationRoute, async ({ query }) => ({ page: query.pageSize })),
      operation(createTeamRoute, async ({ body }) => ({
        team: { name: body.name, users: body.userIds.map((userId) => ({ userId })) },
      })),
      // @ts-expect-error createTeam's body has no `description`
      operation(createTeamRoute, async ({ body }) => ({ description: body.description })),
      operation(listScansRoute, async ({ query }) => ({ nextPageToken: query.pageSize.toFixed(0) })),
      // @ts-expect-error listScans's pageSize is a number, not a string
      operation(listScansRoute, async ({ query }) => ({ size: query.pageSize.toUpperCase() })),
      // @ts-expect-error listScans's query has no `cursor`
      operation(listScansRoute, async ({ query }) => ({ cursor: query.cursor })),
      // a body read only after the access check (bodyAfterAccess) comes through readBody, never as `body`
      operation(reportScanAlertsRoute, async ({ readBody }) => ({
        alertsReported: Object.keys(await readBody()).length,
      })),
      // @ts-expect-error reportScanAlerts's body is read with readBody()
      operation(reportScanAlertsRoute, async ({ body }) => ({ count: Object.keys(body).length })),
      operation(importScanReportRoute, async ({ rawBody }) => ({ alertsImported: rawBody.length })),
      // @ts-expect-error getApplication takes no raw body
      operation(getApplicationRoute, async ({ rawBody }) => ({ bytes: rawBody.length })),
      // a parameter's own schema types it: `toggle` is 'enabled' | 'disabled', not any string
      operation(toggleAppPluginRoute, async ({ params }) => ({ scanPolicy: { description: params.toggle } })),
      // @ts-expect-error `toggle` is never 'on'
      operation(toggleAppPluginRoute, async ({ params }) => ({ on: params.toggle === 'on' })),
    ];
    for (const handler of handlers) expect(handler).toBeTypeOf('function');
  });
});

function byId(a: Route, b: Route) {
  return a.operationId.localeCompare(b.operationId);
}
