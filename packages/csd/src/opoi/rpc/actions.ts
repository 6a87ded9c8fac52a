/**
 * The OPoI actions, sent from the node's wallet (opoi/wallet-actions.ts builds them): requests,
 * stakes and their renewal, end and release, response commits and reveals, payouts. They exist
 * only with a wallet. The VERIFIABLE steps (publish, challenge, verdicts) are in verifiable.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  MAX_STAKE_MANIFESTS,
  MAX_VERIFIABLE_TOKENS,
  OpoiKind,
  TASK_OPEN,
  TASK_VERIFIABLE,
  actorKey,
  commitmentHash,
  escrowAmount,
  hashFromHex,
  isValidModelName,
  minimumPaymentFloor,
  stakeStatus,
  toHex,
} from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { JsonValue } from '../../format/json-value.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { walletCall, walletOf } from '../../wallet/rpc/common.ts';
import type { OpoiContext } from '../context.ts';
import { SETTLED_STATUSES, nodeRequestToJson, pendingPayout, uuidOf } from '../json.ts';
import { sendMinerAction, sendPayout, sendRelease, sendRequest, sendStake } from '../wallet-actions.ts';
import { actorArg, confirmedRequest, invalid, ownActor, parseHash, parseRequestId, sent } from './args.ts';
import { EXAMPLE_HASH, EXAMPLE_MINER, EXAMPLE_UUID, fields } from './help.ts';

export function registerOpoiActionMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;
  const p = params.opoi;

  registry.register({
    name: 'submitopoirequest',
    category: 'Opoi',
    description:
      "Broadcasts an OPoI REQUEST paid by the requester address's own coins: an escrow of payment + max_tokens ×\n" +
      'fee_per_token (+ audit_quorum × audit_fee for VERIFIABLE) is locked until a staked miner is paid for the\n' +
      'answer (the rest returns to the requester) or the request expires (all of it returns). Only the prompt hash\n' +
      'goes on-chain; send the prompt to a bridge. Name executor_address (the bridge that gets the prompt) so that no\n' +
      'other staker can commit to the request.\n' +
      'A VERIFIABLE request names a registered model manifest as its model: its answer must be published\n' +
      '(publishopoianswer) and is audited by audit_quorum stakers serving that manifest, drawn after the publish;\n' +
      'the winner is paid only if they find it valid, and loses its collateral if they find it invalid.',
    params: [
      { name: 'request_id', type: 'string', description: 'A new UUID chosen by the requester' },
      { name: 'model', type: 'string', description: 'A plain model name (OPEN), or a registered manifest id (VERIFIABLE)' },
      { name: 'prompt_hash', type: 'string', description: 'SHA-256 of the prompt text, 64 lower-case hex digits' },
      { name: 'max_tokens', type: 'integer', description: 'The most tokens the answer may have' },
      { name: 'payment', type: 'amount', description: 'What the winning miner is paid besides the per-token fee, in coins' },
      { name: 'requester_address', type: 'string', description: 'The wallet address that pays, and gets the rest back' },
      { name: 'fee_per_token', type: 'amount', default: 0, description: 'Paid to the winner per generated token, in coins' },
      { name: 'task_type', type: 'string', default: 'OPEN', description: 'OPEN or VERIFIABLE (model is then a registered manifest id)' },
      { name: 'prompt_token_count', type: 'integer', default: 0, description: 'Declared prompt tokens; each raises the minimum payment' },
      { name: 'task_class', type: 'string', default: '', description: 'A free label for bridges (at most 32 characters)' },
      {
        name: 'executor_address',
        type: 'string',
        optional: true,
        description: 'The one staked address allowed to commit (ACTIVE now); any ACTIVE staker may when omitted',
      },
      {
        name: 'audit_quorum',
        type: 'integer',
        optional: true,
        description: `VERIFIABLE (required): auditors drawn after the publish, 1 to ${p.maxAuditQuorum}`,
      },
      {
        name: 'audit_fee',
        type: 'amount',
        optional: true,
        description: `VERIFIABLE: held for each auditor of the quorum, in coins (default and least ${amountToJson(p.minAuditFee)})`,
      },
    ],
    result: fields(
      '"txid" : "hex"            (string) The REQUEST transaction',
      '"request_id" : "str"      (string) The request id',
      '"escrow_amount" : n       (numeric) The escrow locked, in coins',
      '"prompt_hash" : "hex"     (string) The prompt hash',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'llama3.2:1b', EXAMPLE_HASH, 256, 0.01, EXAMPLE_MINER] }],
    handler: async (
      [requestId, model, promptHash, maxTokens, payment, address, feePerToken, taskType, promptTokens, taskClass, executorAddress, quorumArg, feeArg],
      call,
    ) => {
      const wallet = walletOf(ctx, call);
      const id = parseRequestId(requestId);
      if (taskType !== 'OPEN' && taskType !== 'VERIFIABLE') throw invalid('task_type must be OPEN or VERIFIABLE');
      const verifiable = taskType === 'VERIFIABLE';
      if (!isValidModelName(model)) throw invalid('model must be a plain name of at most 64 characters: letters, digits and ._:/+-');
      if (verifiable && !chain.opoi.manifest(model)) throw invalid(`model '${model}' is not a registered manifest id (VERIFIABLE needs one)`);
      const hash = parseHash(promptHash, 'prompt_hash');
      const tokenLimit = verifiable ? Math.min(p.maxTokens, MAX_VERIFIABLE_TOKENS) : p.maxTokens;
      if (maxTokens < 1 || maxTokens > tokenLimit) throw invalid(`max_tokens must be between 1 and ${tokenLimit}`);
      let quorum = 0;
      let auditFee = 0n;
      if (verifiable) {
        if (quorumArg === undefined) throw invalid('audit_quorum is required for a VERIFIABLE request');
        if (quorumArg < 1 || quorumArg > p.maxAuditQuorum) throw invalid(`audit_quorum must be between 1 and ${p.maxAuditQuorum}`);
        quorum = quorumArg;
        auditFee = feeArg ?? p.minAuditFee;
        if (auditFee < p.minAuditFee) throw invalid(`audit_fee must be at least ${amountToJson(p.minAuditFee)}`);
      } else if ((quorumArg ?? 0) !== 0 || (feeArg ?? 0n) !== 0n) {
        throw invalid('audit_quorum and audit_fee are for VERIFIABLE requests only');
      }
      if (promptTokens < 0 || promptTokens > 0xffffffff) throw invalid('prompt_token_count out of range');
      if (taskClass.length > 32 || !/^[\x20-\x7e]*$/.test(taskClass)) throw invalid('task_class must be at most 32 printable characters');
      const floor = minimumPaymentFloor(p.feeBase, p.feePerPromptToken, promptTokens);
      if (payment <= floor) throw invalid(`payment must exceed ${amountToJson(floor)} (nOPoIFeeBase plus the prompt-token fee)`);
      if (chain.opoi.request(id)) throw invalid('request_id already exists on-chain');
      const requester = ownActor(ctx, wallet, address, 'requester_address');
      const executor = executorAddress === undefined ? undefined : actorArg(ctx, executorAddress, 'executor_address');
      if (executor) {
        // Consensus checks the executor's stake only at its COMMIT; a request bound to an address
        // that cannot commit would hold the escrow until it expires, so the wallet refuses it now.
        const stake = chain.opoi.stake(actorKey(executor));
        const status = stake ? stakeStatus(stake, chain.height + 1, p) : 'not staked';
        if (status !== 'ACTIVE') throw invalid(`executor_address has no ACTIVE stake (${status})`);
        if (verifiable && !stake!.serves.includes(model)) throw invalid(`executor_address does not serve manifest '${model}'`);
      }
      if (verifiable) {
        // Consensus refuses a VERIFIABLE request without enough ACTIVE servers to draw the quorum from.
        const excluded = new Set([actorKey(requester), ...(executor ? [actorKey(executor)] : [])]);
        const servers = chain.opoi.servers(model).filter((m) => {
          const s = chain.opoi.stake(m);
          return !excluded.has(m) && s !== undefined && stakeStatus(s, chain.height + 1, p) === 'ACTIVE';
        }).length;
        if (servers < quorum) {
          throw invalid(`${servers} ACTIVE stakers besides the requester and executor serve '${model}', fewer than audit_quorum ${quorum}`);
        }
      }
      const escrow = escrowAmount(payment, feePerToken, maxTokens) + BigInt(quorum) * auditFee;
      const payload = {
        kind: OpoiKind.REQUEST,
        requestId: Buffer.from(id, 'hex'),
        requester,
        promptHash: hash,
        maxTokens,
        payment,
        feePerToken,
        promptTokenCount: promptTokens,
        taskType: verifiable ? TASK_VERIFIABLE : TASK_OPEN,
        model,
        taskClass,
        ...(verifiable ? { auditQuorum: quorum, auditFee } : {}),
        ...(executor ? { executor } : {}),
      } as const;
      const txid = await walletCall(() => sent(sendRequest(wallet, payload, escrow)));
      return { txid, request_id: uuidOf(id), escrow_amount: amountToJson(escrow), prompt_hash: promptHash };
    },
  });

  registry.register({
    name: 'stakeopoi',
    category: 'Opoi',
    description:
      "Stakes a miner address: spends the chosen coin of that address, locking the network's minimum stake as\n" +
      'collateral (output 0 of the STAKE transaction, in a form only the OPoI rules release: it leaves the\n' +
      "wallet's balance) and returning the rest to the address to pay for its OPoI transactions. After unstakeopoi\n" +
      'and the cooldown, releaseopoistake pays the collateral back to the address; an invalid audit outcome of one of\n' +
      'its VERIFIABLE answers forfeits it.',
    params: [
      { name: 'miner_address', type: 'string', description: 'The staking address (its key must be in this wallet)' },
      { name: 'collateral_txid', type: 'string', description: 'The coin of miner_address to stake from' },
      { name: 'collateral_vout', type: 'integer', description: 'Its output index' },
      { name: 'model_id', type: 'string', default: '', description: 'The model the miner serves (informative)' },
      { name: 'endpoint', type: 'string', default: '', description: 'Where the miner can be reached (informative)' },
      {
        name: 'serves',
        type: 'array',
        optional: true,
        description: `Model ids of registered manifests the miner serves (at most ${MAX_STAKE_MANIFESTS}, each confirmed)`,
      },
    ],
    result: fields(
      '"txid" : "hex"            (string) The STAKE transaction',
      '"miner_address" : "str"   (string) The staked address',
      '"collateral_txid" : "hex" (string) The STAKE transaction (its output 0 is the collateral)',
      '"collateral_vout" : n     (numeric) 0',
      '"amount" : n              (numeric) The collateral, in coins',
    ),
    examples: [{ args: [EXAMPLE_MINER, EXAMPLE_HASH, 0] }],
    handler: async ([address, collateralTxid, collateralVout, modelId, endpoint, servesArg], call) => {
      const wallet = walletOf(ctx, call);
      const miner = ownActor(ctx, wallet, address, 'miner_address');
      parseHash(collateralTxid, 'collateral_txid');
      if (collateralVout < 0) throw invalid('collateral_vout must not be negative');
      for (const [text, name] of [
        [modelId, 'model_id'],
        [endpoint, 'endpoint'],
      ]) {
        if (text.length > 128 || !/^[\x20-\x7e]*$/.test(text)) throw invalid(`${name} must be at most 128 printable characters`);
      }
      const serves = servesArg ?? [];
      if (serves.length > MAX_STAKE_MANIFESTS) throw invalid(`serves lists at most ${MAX_STAKE_MANIFESTS} manifests`);
      serves.forEach((id, i) => {
        if (typeof id !== 'string' || !chain.opoi.manifest(id)) throw invalid(`serves[${i}] is not the model id of a confirmed manifest`);
        if (serves.indexOf(id) !== i) throw invalid(`serves lists '${id}' twice`);
      });
      const existing = chain.opoi.stake(actorKey(miner));
      if (existing) throw invalid(`miner_address already has a stake (${stakeStatus(existing, chain.height + 1, p)})`);
      const payload = { kind: OpoiKind.STAKE, miner, modelId, endpoint, ...(serves.length > 0 ? { serves: serves as string[] } : {}) } as const;
      const txid = await walletCall(() => sent(sendStake(wallet, payload, { txid: collateralTxid, vout: collateralVout }, p.minStake)));
      return { txid, miner_address: address, collateral_txid: txid, collateral_vout: 0, amount: amountToJson(p.minStake) };
    },
  });

  for (const [name, kind, what] of [
    ['renewopoistake', OpoiKind.RENEW, 'Renews the stake of a miner address, keeping it ACTIVE (or making a SUSPENDED one ACTIVE again).'],
    [
      'unstakeopoi',
      OpoiKind.UNSTAKE,
      'Ends the stake of a miner address: releaseopoistake pays the collateral back once the unstake cooldown has passed.',
    ],
  ] as const) {
    registry.register({
      name,
      category: 'Opoi',
      description: what,
      params: [{ name: 'miner_address', type: 'string', description: 'The staking address' }],
      result: fields(
        '"txid" : "hex"            (string) The transaction',
        '"miner_address" : "str"   (string) The staked address',
        '"unlock_height" : n       (numeric or null) When the collateral can be released (unstakeopoi; null for renewopoistake)',
      ),
      examples: [{ args: [EXAMPLE_MINER] }],
      handler: async ([address], call) => {
        const wallet = walletOf(ctx, call);
        const miner = ownActor(ctx, wallet, address, 'miner_address');
        const s = chain.opoi.stake(actorKey(miner));
        if (!s) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'miner_address has no stake');
        if (s.forfeitedBy !== null) throw invalid(`the collateral of miner_address was forfeited by request ${uuidOf(s.forfeitedBy)}`);
        if (s.unstakeHeight !== null) throw invalid(`miner_address unstaked at height ${s.unstakeHeight}`);
        const txid = await walletCall(() => sent(sendMinerAction(wallet, { kind, miner })));
        return { txid, miner_address: address, unlock_height: kind === OpoiKind.UNSTAKE ? chain.height + 1 + p.unstakeCooldown : null };
      },
    });
  }

  /** The common checks of commit and reveal: a pending confirmed request, a staked miner of this wallet. */
  const responseArgs = (call: Parameters<typeof walletOf>[1], requestId: string, responseHash: string, address: string) => {
    const wallet = walletOf(ctx, call);
    const r = confirmedRequest(ctx, parseRequestId(requestId));
    if (r.status !== 'PENDING') throw invalid(`request is ${r.status}`);
    const hash = parseHash(responseHash, 'response_hash');
    const miner = ownActor(ctx, wallet, address, 'miner_address');
    const stake = chain.opoi.stake(actorKey(miner));
    const status = stake ? stakeStatus(stake, chain.height + 1, p) : 'not staked';
    if (status !== 'ACTIVE') throw invalid(`miner_address has no ACTIVE stake (${status})`);
    return { wallet, r, hash, miner, requestIdBytes: Buffer.from(r.id, 'hex') };
  };

  /** The salt argument (32 bytes hex), -8 otherwise. */
  const parseNonce = (nonce: string): Uint8Array => parseHash(nonce.toLowerCase(), 'nonce');

  registry.register({
    name: 'submitopoiresponsecommit',
    category: 'Opoi',
    description:
      'Broadcasts a COMMIT of a staked miner to a response: the commitment hides the response hash, token count and a\n' +
      'random nonce until the REVEAL. Keep nonce_hex: submitopoiresponse needs it after the commit window closes.\n' +
      'Give token_count (the commitment is computed, with a new nonce unless given) or a commitment made elsewhere.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'response_hash', type: 'string', description: 'SHA-256 of the response bytes, 64 lower-case hex digits' },
      { name: 'miner_address', type: 'string', description: 'The staked address of this wallet that answers' },
      { name: 'commitment', type: 'string', optional: true, description: 'A commitment computed by the caller (hex)' },
      { name: 'token_count', type: 'integer', optional: true, description: 'Tokens in the response (at most max_tokens)' },
      { name: 'nonce', type: 'string', optional: true, description: '32 bytes of salt, hex (random when omitted)' },
    ],
    result: fields(
      '"txid" : "hex"                        (string) The COMMIT transaction',
      '"request_id" : "str"                  (string) The request id',
      '"nonce_hex" : "hex"                   (string) The nonce to reveal with (keep it)',
      '"commitment" : "hex"                  (string) The commitment to reveal with',
      '"commit_window_closes_at_height" : n  (numeric) The last height a COMMIT may have',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_HASH, EXAMPLE_MINER, null, 42] }],
    handler: async ([requestId, responseHash, address, commitmentArg, tokenCount, nonceArg], call) => {
      const { wallet, r, hash, miner, requestIdBytes } = responseArgs(call, requestId, responseHash, address);
      if (tokenCount !== undefined && (tokenCount < 0 || tokenCount > r.maxTokens))
        throw invalid(`token_count must be between 0 and max_tokens (${r.maxTokens})`);
      const nonce = nonceArg === undefined ? randomBytes(32) : parseNonce(nonceArg);
      let commitment: Uint8Array;
      if (tokenCount !== undefined) {
        commitment = commitmentHash(requestIdBytes, miner, hash, tokenCount, nonce);
        if (commitmentArg !== undefined && commitmentArg.toLowerCase() !== toHex(commitment)) {
          throw invalid('commitment does not match response_hash, token_count, nonce and miner_address');
        }
      } else if (commitmentArg !== undefined) {
        commitment = parseHash(commitmentArg.toLowerCase(), 'commitment');
      } else {
        throw invalid('token_count is required to compute the commitment (or pass a commitment)');
      }
      const txid = await walletCall(() => sent(sendMinerAction(wallet, { kind: OpoiKind.COMMIT, requestId: requestIdBytes, miner, commitment })));
      const first = r.firstCommitHeight ?? chain.height + 1;
      return {
        txid,
        request_id: uuidOf(r.id),
        nonce_hex: toHex(nonce),
        commitment: toHex(commitment),
        commit_window_closes_at_height: first + p.commitWindow - 1,
      };
    },
  });

  registry.register({
    name: 'submitopoiresponse',
    category: 'Opoi',
    description:
      'Broadcasts the REVEAL of a committed response, after the commit window has closed and before the reveal\n' +
      'deadline: response hash, token count and nonce must hash to the commitment on-chain.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'response_hash', type: 'string', description: 'SHA-256 of the response bytes, 64 lower-case hex digits' },
      { name: 'miner_address', type: 'string', description: 'The address that committed' },
      { name: 'commitment', type: 'string', description: 'The commitment submitopoiresponsecommit returned' },
      { name: 'token_count', type: 'integer', description: 'Tokens in the response, as committed' },
      { name: 'nonce', type: 'string', description: 'The nonce_hex submitopoiresponsecommit returned' },
    ],
    result: fields(
      '"txid" : "hex"          (string) The REVEAL transaction',
      '"request_id" : "str"    (string) The request id',
      '"token_count" : n       (numeric) The revealed token count',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_HASH, EXAMPLE_MINER, EXAMPLE_HASH, 42, EXAMPLE_HASH] }],
    handler: async ([requestId, responseHash, address, commitmentArg, tokenCount, nonceArg], call) => {
      const { wallet, r, hash, miner, requestIdBytes } = responseArgs(call, requestId, responseHash, address);
      const nonce = parseNonce(nonceArg);
      if (tokenCount < 0 || tokenCount > r.maxTokens) throw invalid(`token_count must be between 0 and max_tokens (${r.maxTokens})`);
      const commitment = toHex(commitmentHash(requestIdBytes, miner, hash, tokenCount, nonce));
      if (commitmentArg.toLowerCase() !== commitment) throw invalid('commitment does not match response_hash, token_count, nonce and miner_address');
      const onChain = chain.opoi.commitsOf(r.id).find((c) => c.miner === actorKey(miner));
      if (!onChain) throw invalid('miner_address has no confirmed commit for this request');
      if (onChain.commitment !== commitment) throw invalid('the reveal does not match the commitment on-chain');
      const payload = { kind: OpoiKind.REVEAL, requestId: requestIdBytes, miner, responseHash: hash, tokenCount, salt: nonce } as const;
      const txid = await walletCall(() => sent(sendMinerAction(wallet, payload)));
      return { txid, request_id: uuidOf(r.id), token_count: tokenCount };
    },
  });

  registry.register({
    name: 'claimopoipayout',
    category: 'Opoi',
    description:
      "Pays out a settled request: every coin it holds (the escrow, a challenge's bond, a forfeited collateral) in one\n" +
      "transaction with the outputs its outcome fixes: the winner's pay (and the auditors' fees and bond shares) and\n" +
      "the requester's change (FULFILLED), the whole escrow back (EXPIRED), or the escrow back with the forfeited\n" +
      "collateral's shares (REJECTED). Anyone may call it (this wallet pays the fee). A second call returns the\n" +
      'payout already made (confirmed or in the mempool) instead of paying again.',
    params: [{ name: 'request_id', type: 'string', description: 'The request (a UUID)' }],
    result: fields(
      '"txid" : "hex"              (string) The payout transaction',
      '"request_id" : "str"        (string) The request id',
      '"kind" : "str"              (string) winner (FULFILLED), refund (EXPIRED) or rejected (REJECTED)',
      '"existing" : true|false     (boolean) Whether the payout was already out (a second call)',
      '"winner_amount" : n         (numeric or null) What the winner is paid, in coins (null unless FULFILLED)',
      '"refund_amount" : n         (numeric) What returns to the requester, in coins',
    ),
    examples: [{ args: [EXAMPLE_UUID] }],
    handler: async ([requestId], call) => {
      const wallet = walletOf(ctx, call);
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      if (!SETTLED_STATUSES.has(r.status)) {
        const when =
          r.status === 'PENDING'
            ? 'see reveal_deadline_height or expires_at_height'
            : r.status === 'PUBLISHING'
              ? 'its answer must be published first, or publish_deadline_height pass'
              : "see the audit's reveal_deadline";
        throw invalid(`request is still ${r.status}: it pays out once it is settled (${when})`);
      }
      const existing = r.payoutTxid ?? pendingPayout(ctx.mempool, r);
      const audit = r.publishTxid !== null ? chain.opoi.audit(r.id) : undefined;
      const txid = existing ?? (await walletCall(() => sent(sendPayout(wallet, r, audit))));
      const outputs = nodeRequestToJson({ ...r, payoutTxid: txid }, ctx);
      return {
        txid,
        request_id: uuidOf(r.id),
        kind: r.status === 'FULFILLED' ? 'winner' : r.status === 'REJECTED' ? 'rejected' : 'refund',
        existing: existing !== undefined,
        winner_amount: outputs.winner_amount as JsonValue,
        refund_amount: outputs.refund_amount as JsonValue,
      };
    },
  });

  registry.register({
    name: 'releaseopoistake',
    category: 'Opoi',
    description:
      'Releases the collateral of an UNSTAKED stake (the unstake cooldown passed, no audit of its answers pending):\n' +
      "one transaction spends it and pays all of it to the staker's address; the stake is gone once it confirms.\n" +
      'Anyone may call it (this wallet pays the fee). A release already in the mempool is returned, not sent again.',
    params: [{ name: 'miner_address', type: 'string', description: 'The staked address' }],
    result: fields(
      '"txid" : "hex"            (string) The release transaction',
      '"miner_address" : "str"   (string) The staked address, paid the collateral',
      '"amount" : n              (numeric) The collateral released, in coins',
      '"existing" : true|false   (boolean) Whether the release was already in the mempool',
    ),
    examples: [{ args: [EXAMPLE_MINER] }],
    handler: async ([address], call) => {
      const wallet = walletOf(ctx, call);
      const s = chain.opoi.stake(actorKey(actorArg(ctx, address, 'miner_address')));
      if (!s) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'miner_address has no stake');
      const status = stakeStatus(s, chain.height + 1, p);
      if (status === 'FORFEITED') throw invalid(`the collateral was forfeited by request ${uuidOf(s.forfeitedBy!)}: its payout spends it`);
      if (status !== 'UNSTAKED') {
        const until = s.unstakeHeight === null ? 'unstakeopoi first' : `the cooldown ends at height ${s.unstakeHeight + p.unstakeCooldown}`;
        throw invalid(`the stake is ${status}: its collateral is released once UNSTAKED (${until})`);
      }
      if (s.locks > 0) throw invalid(`the collateral is locked by ${s.locks} audit(s) of the staker's answers still pending`);
      const existing =
        ctx.mempool.size === 0 ? undefined : ctx.mempool.spender({ txid: hashFromHex(s.collateralTxid), vout: s.collateralVout })?.txid;
      const txid = existing ?? (await walletCall(() => sent(sendRelease(wallet, s))));
      return { txid, miner_address: address, amount: amountToJson(s.amount), existing: existing !== undefined };
    },
  });
}
