/** The OPoI methods' help: example arguments and results in Core's RPCResult layout. */

export const EXAMPLE_UUID = '0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
export const EXAMPLE_HASH = 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9';
export const EXAMPLE_MINER = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

// The results in Core's RPCResult layout, one field per line (docs/api/rpc-methods.json and
// @cs/client's types are generated from them); fields follow opoi/json.ts.
export const COMMIT_FIELDS = [
  '"request_id" : "str",           (string) The request id (a UUID)',
  '"miner" : "str",                (string) The committing miner address',
  '"commitment" : "hex",           (string) The commitment',
  '"commit_txid" : "hex",          (string) The COMMIT transaction',
  '"commit_height" : n,            (numeric) Its block height',
  '"revealed" : true|false,        (boolean) Whether the miner revealed',
  '"response_hash" : "hex",        (string, optional) The revealed response hash (once revealed)',
  '"token_count" : n,              (numeric, optional) The revealed token count (once revealed)',
  '"reveal_txid" : "hex",          (string, optional) The REVEAL transaction (once revealed)',
  '"reveal_height" : n,            (numeric, optional) Its block height (once revealed)',
  '"winner" : true|false           (boolean) Whether this commit won the request',
];
export const AUDITOR_FIELDS = [
  '"address" : "str",              (string) The drawn auditor',
  '"round" : n,                    (numeric) 0: drawn after the publish; 1: drawn after a challenge',
  '"committed" : true|false,       (boolean) Whether its verdict commit confirmed',
  '"verdict" : "str",              (string or null) valid or invalid once revealed (null before)',
  '"commit_txid" : "hex",          (string or null) The VERDICT_COMMIT transaction',
  '"reveal_txid" : "hex"           (string or null) The VERDICT_REVEAL transaction',
];
export const AUDIT_FIELDS = [
  '"draw_height" : n,              (numeric) The height at whose end the quorum is drawn (the block after the publish)',
  '"commit_close" : n,             (numeric) The last height a verdict commit (or a challenge) may have',
  '"reveal_deadline" : n,          (numeric) The last height a verdict reveal may have; the outcome is decided at its end',
  '"auditors" : [                  (json array) The drawn auditors, round 0 then round 1, in draw order',
  '  {                             (json object)',
  ...AUDITOR_FIELDS.map((l) => `    ${l}`),
  '  },',
  '  ...',
  '],',
  '"challenge" : {                 (json object or null) The challenge (null without one)',
  '  "challenger" : "str",         (string) The challenger address',
  '  "bond" : n,                   (numeric) The bond it holds, in coins',
  '  "txid" : "hex",               (string) The CHALLENGE transaction (its output 0 is the bond)',
  '  "height" : n                  (numeric) Its block height',
  '},',
  '"outcome" : "str",              (string or null) valid, invalid or unaudited once decided (null before)',
  '"forfeited" : n                 (numeric) The winner\'s collateral an invalid outcome took, in coins (0: none)',
];
export const REQUEST_FIELDS = [
  '"request_id" : "str",                       (string) The request id (a UUID)',
  '"status" : "str",                           (string) PENDING, PUBLISHING, AUDITING, FULFILLED, REJECTED or EXPIRED',
  '"requester" : "str",                        (string) The requester address',
  '"executor" : "str",                         (string or null) The only staker that may commit (null: any ACTIVE staker)',
  '"model" : "str",                            (string) The model name (OPEN) or manifest id (VERIFIABLE)',
  '"prompt_hash" : "hex",                      (string) SHA-256 of the prompt',
  '"max_tokens" : n,                           (numeric) The most tokens the answer may have',
  '"payment" : n,                              (numeric) The payment in coins',
  '"fee_per_token" : n,                        (numeric) The per-token fee in coins',
  '"task_type" : "str",                        (string) OPEN or VERIFIABLE',
  '"task_class" : "str",                       (string) The requester\'s label',
  '"prompt_token_count" : n,                   (numeric) Declared prompt tokens',
  '"audit_quorum" : n,                         (numeric) Auditors drawn after the publish (VERIFIABLE; 0 for OPEN)',
  '"audit_fee" : n,                            (numeric) Held for each auditor of the quorum, in coins (0 for OPEN)',
  '"block_height" : n,                         (numeric) Height of the REQUEST\'s block',
  '"block_hash" : "hex",                       (string or null) Its hash (null off the active chain)',
  '"confirmations" : n,                        (numeric) Confirmations of the REQUEST',
  '"tx_hash" : "hex",                          (string) The REQUEST transaction',
  '"escrow" : {                                (json object) The escrow output',
  '  "txid" : "hex",                           (string) The REQUEST transaction',
  '  "vout" : n,                               (numeric) Always 0',
  '  "amount" : n                              (numeric) The escrow in coins',
  '},',
  '"commit_window_opens_at_height" : n,        (numeric) The first height a COMMIT may have',
  '"commit_window_closes_at_height" : n,       (numeric or null) The last (null until the first COMMIT)',
  '"commit_window_closed" : true|false,        (boolean) Whether the tip is past it',
  '"reveal_deadline_height" : n,               (numeric or null) The last height a REVEAL may have (null until the first COMMIT)',
  '"expires_at_height" : n,                    (numeric or null) When the request expires without a COMMIT (null once committed)',
  '"response_commits" : n,                     (numeric) The number of COMMITs',
  '"response_reveals" : n,                     (numeric) The number of REVEALs',
  '"commits" : [                               (json array) The commits',
  '  {                                         (json object)',
  ...COMMIT_FIELDS.map((l) => `    ${l}`),
  '  },',
  '  ...',
  '],',
  '"resolved_height" : n,                      (numeric or null) The height it resolved at',
  '"winner" : "str",                           (string or null) The winning miner address',
  '"winner_token_count" : n,                   (numeric or null) The winner\'s token count',
  '"winner_amount" : n,                        (numeric or null) What the winner is paid, in coins (FULFILLED)',
  '"refund_amount" : n,                        (numeric or null) What returns to the requester, in coins (once settled)',
  '"payout_outputs" : [                        (json array) The outputs the payout must lead with, in order (once settled)',
  '  {                                         (json object)',
  '    "address" : "str",                      (string or null) Who is paid (null: the burned part of a forfeit)',
  '    "script_pubkey" : "hex",                (string) The output script',
  '    "amount" : n                            (numeric) The amount in coins',
  '  },',
  '  ...',
  '],',
  '"payout_status" : "str",                    (string) none, claimable (settled: FULFILLED, REJECTED or EXPIRED), pending or confirmed',
  '"payout_txid" : "hex",                      (string or null) The payout transaction (pending or confirmed)',
  '"payout_height" : n,                        (numeric or null) Its block height (confirmed)',
  '"publish" : {                               (json object or null) The PUBLISH of the prompt and answer (null: none)',
  '  "txid" : "hex",                           (string) The PUBLISH transaction',
  '  "height" : n                              (numeric) Its block height',
  '},',
  '"publish_deadline_height" : n,              (numeric or null) The last height the answer may be published at (PUBLISHING)',
  '"audit" : {                                 (json object or null) The audit (VERIFIABLE, once published; as getopoiaudit)',
  ...AUDIT_FIELDS.map((l) => `  ${l}`),
  '}',
];
export const STAKE_FIELDS = [
  '"miner_address" : "str",        (string) The staked address',
  '"status" : "str",               (string) ACTIVE, SUSPENDED, UNSTAKING, UNSTAKED or FORFEITED (for the next block)',
  '"collateral_txid" : "hex",      (string) The STAKE transaction',
  '"collateral_vout" : n,          (numeric) The collateral output (0)',
  '"amount" : n,                   (numeric) The collateral in coins',
  '"model_id" : "str",             (string) The model the miner serves',
  '"endpoint" : "str",             (string) Where the miner can be reached',
  '"serves" : [ "str", ... ],      (json array) Model ids of the registered manifests the miner serves',
  '"txid" : "hex",                 (string) The STAKE transaction',
  '"height" : n,                   (numeric) Its block height',
  '"renewed_height" : n,           (numeric) The last STAKE or RENEW height',
  '"renew_by_height" : n,          (numeric) The height by which a RENEW keeps it ACTIVE',
  '"unstake_height" : n,           (numeric or null) The UNSTAKE height',
  '"unlock_height" : n,            (numeric or null) When the collateral can be released after UNSTAKE',
  '"locks" : n,                    (numeric) VERIFIABLE wins whose audit has not ended: the collateral stays locked',
  '"forfeited_by" : "str"          (string or null) The request whose invalid outcome took the collateral',
];

export const MANIFEST_FIELDS = [
  '"model_id" : "str",             (string) The manifest\'s model id',
  '"registrant" : "str",           (string) The address that registered it',
  '"gguf_sha256" : "hex",          (string) SHA-256 of the exact GGUF file',
  '"gguf_size" : n,                (numeric) Its size in bytes',
  '"decoding" : "str",             (string) greedy (argmax)',
  '"bos" : "str",                  (string) metadata, never or always: whether the prompt starts with BOS',
  '"parse_special" : true|false,   (boolean) Whether special-token text in the prompt is parsed as special tokens',
  '"chat_template_sha256" : "hex", (string or null) SHA-256 of the chat template wrapping the prompt (null: none)',
  '"tolerance" : n,                (numeric) Largest accepted gap to the argmax logit, in units of 2^-16 logit',
  '"fee" : n,                      (numeric) What the registration burned, in coins',
  '"txid" : "hex",                 (string) The MANIFEST transaction',
  '"height" : n,                   (numeric) Its block height',
  '"confirmations" : n             (numeric) Its confirmations',
];

/** A Core-style object result from field lines: `{`, the fields indented, `}`. */
export function objectResult(fields: readonly string[], indent = ''): string[] {
  return [`${indent}{                              (json object)`, ...fields.map((l) => `${indent}  ${l}`), `${indent}}`];
}

/** A Core-style array-of-objects result. */
export function arrayResult(fields: readonly string[]): string {
  return [
    '[                                (json array)',
    ...objectResult(fields, '  ').map((l, i, all) => (i === all.length - 1 ? `${l},` : l)),
    '  ...',
    ']',
  ].join('\n');
}

/** Field lines of a flat result object, `"name" : value, (type) description`. */
export function fields(...lines: string[]): string {
  return objectResult(lines.map((l, i) => (i === lines.length - 1 ? l : l.replace(/^("[^"]*" : \S+?)(\s)/, '$1,$2')))).join('\n');
}
