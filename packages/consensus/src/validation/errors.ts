/**
 * A consensus or policy rule failure. `reason` is Bitcoin Core's reject string
 * (bad-txns-vin-empty, high-hash, ...): RPC results (submitblock, testmempoolaccept), P2P
 * reject handling and tests all key on it, never on the message text.
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly reason: string,
    readonly debug = '',
    /**
     * True when the failure may come from corruption in transit rather than an invalid block
     * (a mutated merkle tree or witness): such a block must not be marked permanently invalid.
     */
    readonly corruptionPossible = false,
  ) {
    super(debug ? `${reason} (${debug})` : reason);
  }
}
