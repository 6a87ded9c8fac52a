// The shapes the request timeline reads: csd's request and audit objects (docs/rpc.md, "The
// request object", "The audit object"), the bridge's submission, the published content, and the
// ask form's prompt hand-over, as /api/node/<i>/opoi/<id> returns them together.

export interface Commit {
  miner: string;
  commit_txid: string;
  commit_height: number;
  revealed: boolean;
  reveal_txid?: string;
  reveal_height?: number;
  token_count?: number;
  winner: boolean;
}

export interface Auditor {
  address: string;
  round: number;
  committed: boolean;
  verdict: 'valid' | 'invalid' | null;
  commit_txid: string | null;
  reveal_txid: string | null;
}

export interface Audit {
  draw_height: number;
  commit_close: number;
  reveal_deadline: number;
  auditors: Auditor[];
  challenge: { challenger: string; bond: number; txid: string; height: number } | null;
  outcome: 'valid' | 'invalid' | 'unaudited' | null;
  forfeited: number;
}

export interface Request {
  request_id: string;
  status: string;
  requester: string;
  executor: string | null;
  model: string;
  task_type: 'OPEN' | 'VERIFIABLE';
  audit_quorum: number;
  audit_fee: number;
  max_tokens: number;
  payment: number;
  block_height: number;
  block_hash: string | null;
  tx_hash: string;
  commit_window_closes_at_height: number | null;
  reveal_deadline_height: number | null;
  expires_at_height: number | null;
  commits: Commit[];
  resolved_height: number | null;
  winner: string | null;
  winner_amount: number | null;
  refund_amount: number | null;
  payout_outputs: { address: string | null; amount: number }[];
  payout_status: string;
  payout_txid: string | null;
  payout_height: number | null;
  publish: { txid: string; height: number } | null;
  publish_deadline_height: number | null;
}

export interface Submission {
  stage: string;
  note: string | null;
  miner: string | null;
  token_count: number | null;
  commit_txid: string | null;
  reveal_txid: string | null;
  payout_txid: string | null;
  miner_share: number | null;
  response_hex: string | null;
}

export interface Content {
  content_hex: string;
  miner: string;
}

export interface Asked {
  request_id: string;
  txid: string;
  state: string;
  detail: string;
}

export interface Snapshot {
  request: Request | null;
  submission: Submission | null;
  content: Content | null;
  audit: Audit | null;
  asked: Asked | null;
  down: string[];
}
