import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryState, actingTx, expectReject, payloadOut } from '../../test/opoi-state.ts';
import { REGTEST } from '../params/networks.ts';
import { ValidationError } from '../validation/errors.ts';
import { actorKey } from './actor.ts';
import { collateralScript } from './escrow.ts';
import { ActorType, BosRule, MANIFEST_PARSE_SPECIAL, MANIFEST_TEMPLATE, OpoiKind, type OpoiPayload, opoiPayloadScript } from './payload.ts';
import { applyOpoiTransaction } from './rules.ts';
import type { OpoiEvent } from './state.ts';

const P = REGTEST.opoi;
const requester = { type: ActorType.P2WPKH, hash: new Uint8Array(20).fill(1) };
const minerA = { type: ActorType.P2WPKH, hash: new Uint8Array(20).fill(2) };

test('MANIFEST: registered once, for the fee it burns, with a known rule; a STAKE serves registered manifests only', () => {
  const st = new MemoryState();
  const manifest = {
    kind: OpoiKind.MANIFEST,
    registrant: requester,
    modelId: 'qwen2.5-0.5b',
    ggufSha256: new Uint8Array(32).fill(0x11),
    ggufSize: 491_400_032n,
    decoding: 0,
    flags: BosRule.NEVER | MANIFEST_PARSE_SPECIAL,
    tolerance: 4096,
  } as const;
  const register = (m: OpoiPayload, fee = P.manifestFee, actor = requester) => actingTx(actor, [{ value: fee, scriptPubKey: opoiPayloadScript(m) }]);
  const events: OpoiEvent[] = [];
  const refuse = (m: OpoiPayload, reason: string, fee = P.manifestFee, actor = requester) => {
    const { tx, spent } = register(m, fee, actor);
    expectReject(() => applyOpoiTransaction(st, tx, spent, 5, P, events), reason);
  };
  refuse(manifest, 'bad-opoi-manifest-fee', P.manifestFee - 1n);
  refuse(manifest, 'bad-opoi-unsigned', P.manifestFee, minerA);
  refuse({ ...manifest, modelId: 'no spaces' }, 'bad-opoi-model');
  refuse({ ...manifest, ggufSize: 0n }, 'bad-opoi-manifest-file');
  refuse({ ...manifest, decoding: 1 }, 'bad-opoi-manifest-rule');
  refuse({ ...manifest, flags: 3 }, 'bad-opoi-manifest-rule');
  refuse({ ...manifest, flags: 0x10 }, 'bad-opoi-manifest-rule');
  assert.equal(events.length, 0);
  const ok = register(manifest, P.manifestFee + 5n);
  applyOpoiTransaction(st, ok.tx, ok.spent, 5, P, events);
  assert.deepEqual(st.manifest('qwen2.5-0.5b'), {
    modelId: 'qwen2.5-0.5b',
    registrant: actorKey(requester),
    ggufSha256: '11'.repeat(32),
    ggufSize: 491_400_032n,
    decoding: 0,
    flags: 5,
    templateHash: null,
    tolerance: 4096,
    fee: P.manifestFee + 5n,
    txid: ok.tx.txidHex,
    height: 5,
  });
  assert.deepEqual(events, [
    { type: 'manifest', height: 5, requestId: null, miner: actorKey(requester), txid: ok.tx.txidHex, modelId: 'qwen2.5-0.5b' },
  ]);
  // Immutable: the same id again, even from its registrant with other fields, is refused.
  refuse({ ...manifest, tolerance: 0 }, 'bad-opoi-manifest-exists');
  const templated = register({ ...manifest, modelId: 'with-template', flags: MANIFEST_TEMPLATE, templateHash: new Uint8Array(32).fill(0x44) });
  applyOpoiTransaction(st, templated.tx, templated.spent, 6, P, []);
  assert.equal(st.manifest('with-template')?.templateHash, '44'.repeat(32));

  const stake = (serves: string[] | undefined) =>
    actingTx(minerA, [
      { value: P.minStake, scriptPubKey: collateralScript(minerA) },
      payloadOut({ kind: OpoiKind.STAKE, miner: minerA, modelId: '', endpoint: '', ...(serves ? { serves } : {}) }),
    ]);
  for (const [serves, why] of [
    [['unregistered'], 'not registered'],
    [['qwen2.5-0.5b', 'unregistered'], 'one of them not registered'],
    [['qwen2.5-0.5b', 'qwen2.5-0.5b'], 'listed twice'],
  ] as const) {
    const { tx, spent } = stake([...serves]);
    assert.throws(
      () => applyOpoiTransaction(st, tx, spent, 7, P, []),
      (e: unknown) => e instanceof ValidationError && e.reason === 'bad-opoi-stake-manifest',
      why,
    );
  }
  const serving = stake(['with-template', 'qwen2.5-0.5b']);
  applyOpoiTransaction(st, serving.tx, serving.spent, 7, P, []);
  assert.deepEqual(st.stake(actorKey(minerA))?.serves, ['with-template', 'qwen2.5-0.5b']);
  const plain = stake(undefined);
  st.stakes.clear();
  applyOpoiTransaction(st, plain.tx, plain.spent, 7, P, []);
  assert.deepEqual(st.stake(actorKey(minerA))?.serves, [], 'a STAKE without the list serves none');
});
