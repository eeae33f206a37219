import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { useTitle } from '../components/ui';

// A finding's request and response are attacker-influenced text: they are only ever rendered as text nodes
// inside <pre>, never as HTML (no dangerouslySetInnerHTML anywhere in the dashboard).
export default function FindingPage() {
  const { orgId = '', scanId = '', alertUriId = '', messageId = '' } = useParams();
  const message = useQuery({
    queryKey: ['message', scanId, alertUriId, messageId],
    queryFn: () => unwrap(api.GET('/api/v1/scan/{scanId}/uri/{alertUriId}/messages/{messageId}', { params: { path: { scanId, alertUriId, messageId }, query: { includeValidationCommand: 'true' } } })),
  });
  useTitle('Finding');
  return (
    <QueryView query={message} what="the finding">
      {(m) => (
        <>
          <p className="crumbs">
            <Link to={`/org/${orgId}/scan/${scanId}`}>Scan</Link> /
          </p>
          <h1 className="wrap">Finding at {m.uri}</h1>
          <dl className="facts">
            {m.param && (
              <>
                <dt>Parameter</dt>
                <dd className="wrap">{m.param}</dd>
              </>
            )}
            <dt>Evidence</dt>
            <dd className="wrap">
              <code>{m.evidence || '—'}</code>
            </dd>
            {m.otherInfo && (
              <>
                <dt>Other information</dt>
                <dd className="wrap">{m.otherInfo}</dd>
              </>
            )}
          </dl>
          {m.description && <p className="prose">{m.description}</p>}
          <h2>Request</h2>
          <pre className="code" tabIndex={0} aria-label="Request">
            {m.scanMessage?.requestHeader}
            {m.scanMessage?.requestBody && `\n${m.scanMessage.requestBody}`}
          </pre>
          <h2>Response</h2>
          <pre className="code" tabIndex={0} aria-label="Response">
            {m.scanMessage?.responseHeader}
            {m.scanMessage?.responseBody && `\n${m.scanMessage.responseBody}`}
          </pre>
          {m.validationCommand && (
            <>
              <h2>Reproduce</h2>
              <pre className="code" tabIndex={0} aria-label="curl command">
                {m.validationCommand}
              </pre>
            </>
          )}
        </>
      )}
    </QueryView>
  );
}
