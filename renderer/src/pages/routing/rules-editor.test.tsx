import { describe, expect, it } from 'vitest';
import { routeRuleSchema } from '../../../../core/config/route-rule-schema.ts';
import { describeConditions, ruleFromForm } from './rules-editor.tsx';

describe('the rules editor', () => {
  it("turns the new rule's form into a rule core's schema takes, and describes its conditions", () => {
    const rule = routeRuleSchema.parse(ruleFromForm({ name: 'cheap', requestClass: 'compaction', agentType: '', tier: 'claude-haiku-*', thinking: 'off', promptTokensAtLeast: '', windowShareAtLeast: '60', tools: '', model: 'gemini-2.5-flash' }));
    expect(rule).toEqual({ name: 'cheap', when: { requestClass: ['compaction'], model: ['claude-haiku-*'], thinking: false, windowShareAtLeast: 0.6 }, model: 'gemini-2.5-flash' });
    expect(describeConditions(rule.when)).toBe('class compaction, model claude-haiku-*, thinking off, prompt ≥ 60% of the window');
  });

  it('a form with no condition is refused by the schema, naming the field', () => {
    const parsed = routeRuleSchema.safeParse(ruleFromForm({ name: '', requestClass: '', agentType: '', tier: '', thinking: '', promptTokensAtLeast: '', windowShareAtLeast: '', tools: '', model: 'gpt-4o' }));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['when'], message: expect.stringContaining('must name at least one condition') });
  });
});
