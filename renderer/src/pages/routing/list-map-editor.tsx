import { useState } from 'react';

interface Props {
  title: string;
  keyLabel: string;
  memberLabel: string;
  value: Record<string, string[]>;
  options: string[];
  onSave: (next: Record<string, string[]>) => Promise<unknown>;
  help: string;
}

/**
 * An editable map name -> ordered list (fallback chains, custom aliases). Order matters for
 * fallbacks, so members move with Up/Down buttons a keyboard reaches, not by dragging.
 */
export function ListMapEditor({ title, keyLabel, memberLabel, value, options, onSave, help }: Props) {
  const [draft, setDraft] = useState<Record<string, string[]> | null>(null);
  const [newName, setNewName] = useState('');
  const [pick, setPick] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const map = draft ?? value;
  const edit = (next: Record<string, string[]>) => {
    setDraft(next);
    setMessage(null);
  };
  const move = (name: string, i: number, by: number) => {
    const list = [...map[name]];
    [list[i], list[i + by]] = [list[i + by], list[i]];
    edit({ ...map, [name]: list });
  };
  const save = async () => {
    const empty = Object.entries(map).find(([, list]) => list.length === 0);
    if (empty) return setMessage(`"${empty[0]}" has no ${memberLabel}s: add one or remove it.`);
    try {
      await onSave(map);
      setDraft(null);
      setMessage('Saved.');
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
    }
  };
  const slug = title.toLowerCase().replace(/\W+/g, '-');

  return (
    <section className="card" aria-labelledby={slug}>
      <h2 id={slug}>{title}</h2>
      <p className="muted">{help}</p>
      {Object.keys(map).length === 0 ? <p className="muted">None yet.</p> : null}
      {Object.entries(map).map(([name, list]) => (
        <div key={name} className="chain">
          <div className="row">
            <strong>{name}</strong>
            <button type="button" className="button small push-right" onClick={() => { const { [name]: _drop, ...rest } = map; void _drop; edit(rest); }} aria-label={`Remove ${name}`}>Remove</button>
          </div>
          <ol>
            {list.map((member, i) => (
              <li key={`${member}-${i}`} className="row">
                <span>{member}</span>
                <button type="button" className="button small" disabled={i === 0} onClick={() => move(name, i, -1)} aria-label={`Move ${member} up in ${name}`}>Up</button>
                <button type="button" className="button small" disabled={i === list.length - 1} onClick={() => move(name, i, 1)} aria-label={`Move ${member} down in ${name}`}>Down</button>
                <button type="button" className="button small" onClick={() => edit({ ...map, [name]: list.filter((_, j) => j !== i) })} aria-label={`Remove ${member} from ${name}`}>Remove</button>
              </li>
            ))}
          </ol>
          <div className="row">
            <select aria-label={`${memberLabel} to add to ${name}`} value={pick[name] ?? ''} onChange={(e) => setPick({ ...pick, [name]: e.target.value })}>
              <option value="">Choose a {memberLabel}…</option>
              {options.filter((o) => !list.includes(o)).map((o) => <option key={o} value={o}>{o}</option>)}
            </select>
            <button type="button" className="button small" disabled={!pick[name]} onClick={() => { edit({ ...map, [name]: [...list, pick[name]] }); setPick({ ...pick, [name]: '' }); }}>Add</button>
          </div>
        </div>
      ))}
      <div className="row">
        <label>
          {keyLabel}
          <input value={newName} onChange={(e) => setNewName(e.target.value)} />
        </label>
        <button type="button" className="button" disabled={!newName.trim() || newName.trim() in map} onClick={() => { edit({ ...map, [newName.trim()]: [] }); setNewName(''); }}>Add</button>
        <button type="button" className="button primary push-right" disabled={draft === null} onClick={() => void save()}>Save</button>
        {draft !== null ? <button type="button" className="button" onClick={() => { setDraft(null); setMessage(null); }}>Discard</button> : null}
      </div>
      {message ? <p aria-live="polite" className={message === 'Saved.' ? 'ok-text' : 'error-text'}>{message}</p> : null}
    </section>
  );
}
