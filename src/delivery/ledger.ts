// The ledger port: named texts every node can read, which outlive the node that wrote them (a feature
// keeps there what a successor must finish, e.g. Butler's answers in progress). A single node has no
// successor to finish anything, so its ledger keeps nothing; cluster mode keeps it on Redis.
export interface LedgerEntry {
  id: string;
  /** What the writer said about the entry when it opened it (JSON, the feature's own shape). */
  meta: string;
  text: string;
}

export interface Ledger {
  /** Opens the entry (its `meta` is kept from the first call) and appends `text`; fire and forget. */
  append(id: string, meta: string, text: string): void;
  /** Forgets the entry; fire and forget. */
  remove(id: string): void;
  /** Every entry left open, forgotten as it is read (whoever takes them finishes them). */
  take(): Promise<LedgerEntry[]>;
}

/** A single node's ledger: nobody comes after it, so nothing is kept. */
export const emptyLedger: Ledger = {
  append() {},
  remove() {},
  take: async () => [],
};
