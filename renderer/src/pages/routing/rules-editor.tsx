import { useState, type FormEvent } from 'react';
import { REQUEST_CLASSES, routeRuleSchema, type RouteRuleConfig } from '../../../../core/config/route-rule-schema.ts';
import type { RoutingBody } from '../../api/types.ts';
import { fieldErrorsFromApi } from '../../components/field-errors.ts';

type Rule = RouteRuleConfig;

const list = (text: string) => text.split(',').map((v) => v.trim()).filter(Boolean);

/** A rule's conditions in words, as the list shows them. */
export function describeConditions(when: Rule['when']): string {
  const said: string[] = [];
  const values = (v: string | string[]) => (Array.isArray(v) ? v.join(' or ') : v);
  if (when.requestClass) said.push(`class ${values(when.requestClass)}`);
  if (when.agentType) said.push(`agent type ${values(when.agentType)}`);
  if (when.auxiliaryType) said.push(`auxiliary type ${values(when.auxiliaryType)}`);
  if (when.model) said.push(`model ${values(when.model)}`);
  if (when.thinking !== undefined) said.push(`thinking ${when.thinking ? 'on' : 'off'}`);
  if (when.promptTokensAtLeast !== undefined) said.push(`prompt ≥ ${when.promptTokensAtLeast} tokens`);
  if (when.windowShareAtLeast !== undefined) said.push(`prompt ≥ ${Math.round(when.windowShareAtLeast * 100)}% of the window`);
  if (when.tools) said.push(`offers ${values(when.tools)}`);
  return said.join(', ');
}

/** The new rule's form as typed -> a rule (validated by core's schema when saved). */
export function ruleFromForm(form: Record<string, string>): unknown {
  const when: Record<string, unknown> = {};
  if (form.requestClass) when.requestClass = list(form.requestClass);
  if (form.agentType) when.agentType = list(form.agentType);
  if (form.tier) when.model = list(form.tier);
  if (form.thinking) when.thinking = form.thinking === 'on';
  if (form.promptTokensAtLeast) when.promptTokensAtLeast = Number(form.promptTokensAtLeast);
  if (form.windowShareAtLeast) when.windowShareAtLeast = Number(form.windowShareAtLeast) / 100;
  if (form.tools) when.tools = list(form.tools);
  return { ...(form.name ? { name: form.name.trim() } : {}), when, model: form.model };
}

const EMPTY = { name: '', requestClass: '', agentType: '', tier: '', thinking: '', promptTokensAtLeast: '', windowShareAtLeast: '', tools: '', model: '' };

/**
 * routing.rules: what a request is for (Claude Code's gateway hints, the request itself) -> the
 * model that serves it, tried in order (first match wins). Rules move with Up/Down buttons a
 * keyboard reaches; a new rule is checked by core's own schema before it is sent.
 */
export function RulesEditor({ routing, models, onSave }: { routing: RoutingBody; models: string[]; onSave: (rules: Rule[]) => Promise<unknown> }) {
  const [draft, setDraft] = useState<Rule[] | null>(null);
  const [form, setForm] = useState<Record<string, string>>(EMPTY);
  const [message, setMessage] = useState<string | null>(null);
  const rules = draft ?? (routing.rules as Rule[]);
  const edit = (next: Rule[]) => {
    setDraft(next);
    setMessage(null);
  };
  const move = (i: number, by: number) => {
    const next = [...rules];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    edit(next);
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    const parsed = routeRuleSchema.safeParse(ruleFromForm(form));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return setMessage(`${['rule', ...issue.path.map(String)].join('.')}: ${issue.message}`);
    }
    edit([...rules, parsed.data]);
    setForm(EMPTY);
  };
  const save = async () => {
    try {
      await onSave(rules);
      setDraft(null);
      setMessage('Saved.');
    } catch (error) {
      const errors = fieldErrorsFromApi(error);
      setMessage(Object.values(errors)[0] ?? String(error));
    }
  };
  const field = (name: keyof typeof EMPTY, label: string, props: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} {...props} />
    </label>
  );

  return (
    <section className="card" aria-labelledby="rules-heading">
      <h2 id="rules-heading">Rules</h2>
      <p className="muted">
        Send a request by what it is for: Claude Code says it in its gateway hints (<code>patchbay claude</code> turns them on), a request shows its
        model, thinking, tools and size. Rules are tried in order; the first that matches sends the request to its model.
      </p>
      {rules.length === 0 ? <p className="muted">None yet.</p> : null}
      <ol className="rules">
        {rules.map((rule, i) => (
          <li key={`${rule.name ?? ''}-${i}`} className="row">
            <span>
              <strong>{rule.name ?? `rule ${i + 1}`}</strong>: {describeConditions(rule.when)} → {rule.model}
            </span>
            <button type="button" className="button small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move ${rule.name ?? `rule ${i + 1}`} up`}>Up</button>
            <button type="button" className="button small" disabled={i === rules.length - 1} onClick={() => move(i, 1)} aria-label={`Move ${rule.name ?? `rule ${i + 1}`} down`}>Down</button>
            <button type="button" className="button small" onClick={() => edit(rules.filter((_, j) => j !== i))} aria-label={`Remove ${rule.name ?? `rule ${i + 1}`}`}>Remove</button>
          </li>
        ))}
      </ol>
      <form className="row wrap" onSubmit={add} aria-label="New rule">
        {field('name', 'Name', { placeholder: 'cheap-compaction' })}
        <label>
          Request class
          <select value={form.requestClass} onChange={(e) => setForm({ ...form, requestClass: e.target.value })}>
            <option value="">any</option>
            {REQUEST_CLASSES.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        {field('agentType', 'Agent type', { placeholder: 'Explore, Plan' })}
        {field('tier', 'Model asked for', { placeholder: 'claude-haiku-*' })}
        <label>
          Thinking
          <select value={form.thinking} onChange={(e) => setForm({ ...form, thinking: e.target.value })}>
            <option value="">either</option>
            <option value="on">on</option>
            <option value="off">off</option>
          </select>
        </label>
        {field('promptTokensAtLeast', 'Prompt at least (tokens)', { inputMode: 'numeric' })}
        {field('windowShareAtLeast', 'Prompt at least (% of window)', { inputMode: 'numeric' })}
        {field('tools', 'Offers tool', { placeholder: 'web_search' })}
        <label>
          Send to
          <select value={form.model} onChange={(e) => setForm({ ...form, model: e.target.value })}>
            <option value="">Choose a model…</option>
            {models.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </label>
        <button type="submit" className="button">Add rule</button>
      </form>
      <div className="row">
        <button type="button" className="button primary push-right" disabled={draft === null} onClick={() => void save()}>Save</button>
        {draft !== null ? <button type="button" className="button" onClick={() => { setDraft(null); setMessage(null); }}>Discard</button> : null}
      </div>
      {message ? <p aria-live="polite" className={message === 'Saved.' ? 'ok-text' : 'error-text'}>{message}</p> : null}
    </section>
  );
}
