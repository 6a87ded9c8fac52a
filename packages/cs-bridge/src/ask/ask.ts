/**
 * `cs-bridge ask`: the requester's whole flow in one command (docs/bridge.md, "Asking"). The
 * prompt's SHA-256 goes on chain with the REQUEST (through the node's wallet, funded by the
 * requester's own coins), the plaintext to the bridge once the REQUEST is confirmed (its 404 is
 * retried with the same request_id), then the lifecycle is followed until the answer is published
 * and paid; a VERIFIABLE one (-verifiable, -model naming a manifest) through its PUBLISH, the
 * auditors drawn, their verdicts and the outcome. Every step is printed (timeline.ts). Ctrl-C leaves
 * the request on chain and prints the command that resumes it.
 */
import { randomUUID } from 'node:crypto';
import { pickRequester, promptHash as hashOfPrompt, RpcError } from '@cs/client';
import { formatAmount, parseAmount } from '@cs/runtime/amount';
import { ConfigError, mergedValues } from '../config/env.ts';
import type { AskRequest } from '../config/options.ts';
import { describeNodeError } from '../node/node-check.ts';
import { requesterNode } from '../requester/node.ts';
import { Timeline } from './timeline.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The OPoI address of the bridge the prompt goes to (its /healthz), named as the request's
 * executor: only that bridge sees the prompt, so no other staker may commit an answer.
 */
async function bridgeAddress(bridgeUrl: string): Promise<string> {
  let body: { opoi_address?: unknown };
  try {
    body = (await (await fetch(`${bridgeUrl}/healthz`)).json()) as typeof body;
  } catch (e) {
    throw new ConfigError(`the bridge at ${bridgeUrl} did not answer /healthz (${(e as Error).message}); nothing was sent`);
  }
  if (typeof body.opoi_address !== 'string') throw new ConfigError(`the bridge at ${bridgeUrl} does not say its OPoI address (/healthz)`);
  return body.opoi_address;
}

export async function runAsk(envFile: string, flags: AskRequest, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const say = (text: string) => out.write(`${text}\n`);
  const env = mergedValues(envFile);
  const { model, maxtokens: maxTokens, payment: paymentText, feepertoken: feePerToken, prompt, verifiable, quorum, auditfee: auditFee } = flags;
  // -payment's check has parsed it already.
  const payment = parseAmount(paymentText)!;
  const { rpc, rpcUrl } = requesterNode(envFile, flags);
  const apiListen = env.API_LISTEN_ADDR ?? '127.0.0.1:3533';
  const bridgeUrl = (flags.bridgeurl ?? `http://${apiListen.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}`).replace(/\/$/, '');
  const apiKey = flags.apikey ?? env.OPOI_REQUESTER_API_KEY ?? '';
  if (apiKey === '') throw new ConfigError('no API key: set OPOI_REQUESTER_API_KEY in the env file or pass -apikey=<key>');
  const pollMs = flags.pollms;
  const promptHash = hashOfPrompt(prompt);
  let requestId = flags.requestid?.toLowerCase() ?? null;

  const onInterrupt = () => {
    if (requestId) {
      say(`\nInterrupted. Request ${requestId} stays on chain (its escrow is refunded if nobody answers).`);
      say(
        `Resume with: cs-bridge ask -requestid=${requestId} -model=${model} -maxtokens=${maxTokens} -payment=${paymentText} ${JSON.stringify(prompt)}`,
      );
    } else say('\nInterrupted before any request was sent.');
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    let requestTxid: string | null = null;
    if (requestId === null) {
      const escrow = payment + BigInt(maxTokens) * feePerToken + (verifiable ? BigInt(quorum) * auditFee : 0n);
      const requester = flags.requester ?? (await pickRequester(rpc, escrow));
      if (requester === null)
        throw new ConfigError('no wallet address holds enough confirmed coins for the escrow; fund one, or pass -requester=<address>');
      const executor = await bridgeAddress(bridgeUrl);
      requestId = randomUUID();
      const r = await rpc.call('submitopoirequest', [
        requestId,
        model,
        promptHash,
        maxTokens,
        paymentText,
        requester,
        formatAmount(feePerToken),
        verifiable ? 'VERIFIABLE' : 'OPEN',
        0,
        '',
        executor,
        verifiable ? quorum : null,
        verifiable ? formatAmount(auditFee) : null,
      ]);
      requestTxid = r.txid;
      say(`REQUEST ${requestId} broadcast: txid ${r.txid} (prompt sha256 ${promptHash}, escrow ${r.escrow_amount})`);
      if (verifiable) say(`VERIFIABLE under manifest ${model}: ${quorum} auditor(s), audit fee ${formatAmount(auditFee)} each`);
    } else say(`Resuming request ${requestId}`);

    say('Waiting for the REQUEST to confirm, then handing the prompt to the bridge...');
    for (;;) {
      const res = await fetch(`${bridgeUrl}/svc/opoi/prompt`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-opoi-api-key': apiKey },
        body: JSON.stringify({ request_id: requestId, prompt }),
      });
      if (res.status === 200) break;
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      // 404 while the REQUEST is unconfirmed: the same request_id again after a block; 429 when
      // over the bridge's per-client limit: again once the minute is over.
      if (res.status === 429) say('The bridge asks to slow down (429); retrying...');
      else if (res.status !== 404) throw new ConfigError(`the bridge refused the prompt (HTTP ${res.status}): ${body.error ?? ''}`);
      await sleep(pollMs);
    }
    say('Prompt accepted by the bridge.');

    const timeline = new Timeline();
    for (;;) {
      const chain = await rpc.call('getopoirequest', [requestId]);
      requestTxid ??= chain.tx_hash;
      const sub = await fetch(`${bridgeUrl}/svc/opoi/submissions/${requestId}`).then((r) =>
        r.ok ? (r.json() as Promise<{ stage: string; payout_txid: string | null }>) : null,
      );
      for (const line of timeline.next(chain, sub?.stage ?? null)) say(line);
      if (chain.status === 'EXPIRED' || chain.status === 'REJECTED') {
        // The requester's coins come back (with a quarter of a forfeited collateral): anyone may claim, so ask does.
        const refund = await rpc.call('claimopoipayout', [requestId]);
        const why =
          chain.status === 'REJECTED' ? 'The auditors found the answer invalid: the request is REJECTED' : 'Nobody answered: the request EXPIRED';
        say(`${why}. Refund txid ${refund.txid} (${refund.refund_amount} coins back); request txid ${requestTxid}.`);
        return chain.status === 'REJECTED' ? 3 : 2;
      }
      if (chain.status === 'FULFILLED' && chain.payout_txid) {
        const content = await rpc.call('getopoicontent', [requestId, 'RESPONSE']).catch((e) => {
          if (e instanceof RpcError && e.code === -5) return null;
          throw e;
        });
        if (content) {
          say('Answer:');
          say(Buffer.from(content.content_hex, 'hex').toString('utf8'));
          say(`request txid ${requestTxid}`);
          say(`payout txid ${chain.payout_txid}`);
          return 0;
        }
      }
      await sleep(pollMs);
    }
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(describeNodeError(e, rpcUrl));
  } finally {
    process.off('SIGINT', onInterrupt);
    rpc.close();
  }
}
