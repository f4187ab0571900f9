interface Props {
  label: string;
  used: number;
  cap: number | null;
  format: (n: number) => string;
  /** Reserved by requests in flight: the cap counts it before they settle. */
  reserved?: number;
  /** The cap refuses requests now: the last refused request needed this much (the bar turns red). */
  refusedNeeding?: number | null;
}

/**
 * One key's month usage against a cap, as a meter a screen reader can read ("1,200 of 5,000
 * tokens"). The cap admits a request only if used + reserved + its estimate fit, so the bar shows
 * the reserved part beside the used part, and turns red as soon as the cap refuses a request, even
 * below 100 %. Without a cap there is nothing to fill: the usage is shown as text only.
 */
export function UsageBar({ label, used, cap, format, reserved = 0, refusedNeeding = null }: Props) {
  if (cap === null) {
    return (
      <div className="usage-bar">
        <span className="usage-text">{label}: {format(used)} (no cap)</span>
      </div>
    );
  }
  const ratio = cap > 0 ? used / cap : 1;
  const reservedRatio = cap > 0 ? Math.max(0, Math.min(1 - Math.min(1, ratio), reserved / cap)) : 0;
  const refused = refusedNeeding !== null;
  const level = refused || ratio >= 1 ? 'bad' : ratio + reservedRatio >= 0.8 ? 'warn' : 'ok';
  const text = `${format(used)} of ${format(cap)}${reserved > 0 ? `, ${format(reserved)} reserved` : ''}`;
  const left = Math.max(0, cap - used - reserved);
  return (
    <div className="usage-bar">
      <span className="usage-text">{label}: {text}</span>
      <div role="meter" aria-label={`${label} this month`} aria-valuemin={0} aria-valuemax={cap} aria-valuenow={Math.min(used, cap)} aria-valuetext={text} className={`meter ${level}`}>
        <div className="meter-fill" style={{ width: `${Math.min(100, ratio * 100)}%` }} />
        {reservedRatio > 0 ? <div className="meter-reserved" style={{ width: `${reservedRatio * 100}%` }} /> : null}
      </div>
      {refused ? (
        <span className="usage-refused">Refusing requests: the last needed up to {format(refusedNeeding)}, {format(left)} left.</span>
      ) : null}
    </div>
  );
}
