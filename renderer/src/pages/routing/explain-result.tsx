import type { RouteExplanation } from '../../api/types.ts';
import { formatMs, formatPercent, formatUsd } from '../../format/format-numbers.ts';

const SKIP_LABELS: Record<string, string> = {
  no_key: 'no key',
  disabled: 'disabled',
  breaker_open: 'breaker open',
  rate_limited: 'rate limited',
  context_too_small: 'context too small',
  capability_missing: 'capability missing',
  not_allowed_for_key: 'not allowed for the key',
  price_unknown: 'no known price (capped key)',
  secret_withheld: 'key withheld',
};

const part = (p: { value: number; weight: number }) => `${p.value.toFixed(2)} × ${p.weight}`;

/** Ranked candidates with their score parts, then every skipped endpoint with its reason. */
export function ExplainResultView({ result }: { result: RouteExplanation }) {
  return (
    <div className="explain">
      {result.rule !== undefined ? (
        <p>
          {result.rule ? (
            <>Rule <strong>{result.rule.name ?? `${result.rule.index + 1}`}</strong> matches ({result.rule.why}): sent to <strong>{result.rule.model}</strong>.</>
          ) : (
            'No rule matches: the model asked for serves it.'
          )}
        </p>
      ) : null}
      <p>
        <strong>{result.model}</strong> with <strong>{result.strategy}</strong>: {result.reason}
      </p>
      {result.candidates.length === 0 ? <p className="error-text">No provider can serve this request now; see the skipped endpoints below.</p> : null}
      {result.candidates.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Candidates in the order Patchbay tries them</caption>
            <thead>
              <tr><th scope="col">#</th><th scope="col">Endpoint</th><th scope="col">Score</th><th scope="col">Latency (value × weight)</th><th scope="col">Cost</th><th scope="col">Availability</th><th scope="col">Expected cost</th><th scope="col">p50</th><th scope="col">Success</th></tr>
            </thead>
            <tbody>
              {result.candidates.map((c) => (
                <tr key={c.endpoint}>
                  <td>{c.rank}</td>
                  <th scope="row">{c.endpoint}{c.group ? <span className="muted"> · {c.group}</span> : null}</th>
                  <td>{c.score.toFixed(3)}</td>
                  {c.parts ? (
                    <>
                      <td>{part(c.parts.latency)}</td>
                      <td>{part(c.parts.cost)}</td>
                      <td>{part(c.parts.availability)}</td>
                    </>
                  ) : (
                    // Round-robin takes endpoints in turn; it draws on no score parts.
                    <td colSpan={3} className="muted">ranked by turn</td>
                  )}
                  <td>{formatUsd(c.expected_cost_usd)}</td>
                  <td>{formatMs(c.latency_p50_ms)}</td>
                  <td>{formatPercent(c.success_rate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {result.skipped.length > 0 ? (
        <>
          <h4>Skipped</h4>
          <ul className="skipped">
            {result.skipped.map((s) => (
              <li key={`${s.endpoint}-${s.code}`}>
                <strong>{s.endpoint}</strong> <span className="badge warn">{SKIP_LABELS[s.code] ?? s.code}</span> {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
