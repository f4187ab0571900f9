interface Props {
  label: string;
  used: number;
  cap: number | null;
  format: (n: number) => string;
}

/**
 * One key's month usage against a cap, as a meter a screen reader can read ("1,200 of 5,000
 * tokens"). Without a cap there is nothing to fill: the usage is shown as text only.
 */
export function UsageBar({ label, used, cap, format }: Props) {
  if (cap === null) {
    return (
      <div className="usage-bar">
        <span className="usage-text">{label}: {format(used)} (no cap)</span>
      </div>
    );
  }
  const ratio = cap > 0 ? used / cap : 1;
  const level = ratio >= 1 ? 'bad' : ratio >= 0.8 ? 'warn' : 'ok';
  const text = `${format(used)} of ${format(cap)}`;
  return (
    <div className="usage-bar">
      <span className="usage-text">{label}: {text}</span>
      <div role="meter" aria-label={`${label} this month`} aria-valuemin={0} aria-valuemax={cap} aria-valuenow={Math.min(used, cap)} aria-valuetext={text} className={`meter ${level}`}>
        <div className="meter-fill" style={{ width: `${Math.min(100, ratio * 100)}%` }} />
      </div>
    </div>
  );
}
