// The probe of a hosted run's target (run.ts): one GET at its pinned address before anything else is sent.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity, rootCertificates, type PeerCertificate } from 'node:tls';
import { RunFailed } from './run-command.ts';

const PROBE_TIMEOUT_MS = 10_000;
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/;

/**
 * One GET of the target at its pinned address before anything else is sent: a target that does not answer ends the
 * run in ERROR saying so (an engine would report a clean scan of nothing). Any HTTP answer will do.
 */
export function reachable(target: URL, address: string, trustedCa?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const https = target.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(
      {
        host: address,
        port: Number(target.port || (https ? 443 : 80)),
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host, 'user-agent': 'hawk-scanner agent' },
        ...(https && !isIP(target.hostname) ? { servername: target.hostname } : {}),
        ...(https
          ? {
              checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(target.hostname, cert),
            }
          : {}),
        ...(https && trustedCa ? { ca: [...rootCertificates, trustedCa] } : {}),
        timeout: PROBE_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        resolve(`${res.statusCode} ${res.statusMessage ?? ''}`.trim());
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: Error & { code?: string }) =>
      reject(
        new RunFailed(
          'UNKNOWN',
          CERTIFICATE_ERROR.test(`${error.code} ${error.message}`)
            ? `the target ${target.origin} (${address}) shows a certificate the agent does not trust: ${error.code ?? ''} ${error.message}; give it a certificate of a public authority, or give the agent its authority (NODE_EXTRA_CA_CERTS=<file> in the agent's environment), then start the scan again`
            : `the target ${target.origin} (${address}) cannot be reached from the agent: ${error.code ?? error.message}; check that app.host is up and reachable, then start the scan again`,
        ),
      ),
    );
    req.end();
  });
}
