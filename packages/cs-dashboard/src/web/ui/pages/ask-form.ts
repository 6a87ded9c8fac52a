// The OPoI page's ask form: a question for the bridge, OPEN (any model name) or VERIFIABLE (a
// registered manifest from listmodelmanifests, audited by a quorum of drawn auditors paid the
// audit fee each). The dashboard server sends the REQUEST naming the bridge's OPoI address as
// executor (/api/ask); the request's timeline follows under the form.
import { type Ctx, postJson } from '../api.ts';
import { h, requestLink, section, txLink } from '../dom.ts';
import type { Asked } from './request-data.ts';
import { followRequest } from './request.ts';

interface Manifest {
  model_id: string;
  gguf_size: number;
  tolerance: number;
}

const field = (label: string, input: HTMLElement, attrs: Record<string, string> = {}) => h('label', attrs, label, input);

/** The VERIFIABLE fields, shown while that task type is chosen: the manifest, the quorum, the fee. */
async function verifiableFields(ctx: Ctx): Promise<HTMLElement> {
  const [manifests, stats] = await Promise.all([
    ctx.rpc<Manifest[]>('listmodelmanifests'),
    ctx.rpc<{ params: { min_audit_fee: number; max_audit_quorum: number } }>('getopoistats'),
  ]);
  const choice =
    manifests.length === 0
      ? h('select', { name: 'manifest', disabled: '' }, h('option', { value: '' }, 'no manifest registered'))
      : h(
          'select',
          { name: 'manifest' },
          ...manifests.map((m) => h('option', { value: m.model_id }, `${m.model_id} (${m.gguf_size} bytes, tolerance ${m.tolerance})`)),
        );
  return h(
    'fieldset',
    { class: 'verifiable', hidden: '' },
    field('Manifest', choice),
    field('Audit quorum', h('input', { name: 'audit_quorum', type: 'number', min: '1', max: String(stats.params.max_audit_quorum), value: '1' })),
    field('Audit fee (coins, each)', h('input', { name: 'audit_fee', value: stats.params.min_audit_fee.toFixed(8) })),
  );
}

/** The form's fields as /api/ask takes them: a VERIFIABLE request's model is the chosen manifest. */
function askBody(form: HTMLFormElement): Record<string, string> {
  const data = Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v)]));
  const { manifest, audit_quorum, audit_fee, ...open } = data;
  if (data.task_type !== 'VERIFIABLE') return open;
  return { ...open, model: manifest ?? '', audit_quorum: audit_quorum ?? '', audit_fee: audit_fee ?? '' };
}

export async function askForm(ctx: Ctx): Promise<HTMLElement> {
  if (!ctx.askEnabled)
    return section('Ask a question', h('p', {}, 'The ask form is off: the dashboard has no bridge API key, or was started with ask off.'));
  const out = h('div', { id: 'ask-result' });
  const verifiable = await verifiableFields(ctx);
  const model = field('Model', h('input', { name: 'model', value: 'tiny' }), { class: 'open-only' });
  const taskType = h('select', { name: 'task_type' }, h('option', { value: 'OPEN' }, 'OPEN'), h('option', { value: 'VERIFIABLE' }, 'VERIFIABLE'));
  const form = h(
    'form',
    { id: 'ask-form', class: 'ask' },
    field('Question', h('textarea', { name: 'prompt', rows: '3', required: '', placeholder: 'What is two plus two?' })),
    field('Task type', taskType),
    model,
    field('Max tokens', h('input', { name: 'max_tokens', type: 'number', min: '1', value: '16', required: '' })),
    field('Payment (coins)', h('input', { name: 'payment', value: '0.05', required: '' })),
    verifiable,
    h('button', { type: 'submit' }, 'Ask'),
  );
  taskType.addEventListener('change', () => {
    const v = taskType.value === 'VERIFIABLE';
    verifiable.hidden = !v;
    model.hidden = v;
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    out.replaceChildren(h('p', {}, 'Sending the REQUEST…'));
    postJson<Asked>('/api/ask', askBody(form))
      .then((a) => {
        out.replaceChildren(h('p', {}, 'REQUEST sent: ', requestLink(a.request_id), ' (txid ', txLink(a.txid), '). Follow it below.'));
        const follow = h('div', {});
        out.append(follow);
        void followRequest(ctx, follow, a.request_id);
      })
      .catch((e: Error) => out.replaceChildren(h('p', { class: 'error' }, e.message)));
  });
  const note =
    'The REQUEST is paid from the node wallet and names the bridge as its executor; the bridge gets the prompt once it confirms. ' +
    'A VERIFIABLE answer is published on chain and replayed by drawn auditors: a false one costs the bridge its collateral and refunds you.';
  return section('Ask a question', h('p', {}, note), form, out);
}
