// Row types of the hub's tables as Kysely sees them. Timestamps are ISO 8601 UTC text written by
// the hub (never by database defaults), booleans are 0/1, so both drivers read the same values.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  role: string;
  actor_type: string;
  agent_kind: string | null;
  runtime_kind: string | null;
  description: string | null;
  /** JSON array of the agent's A2A skills (protocol/a2a.ts `agentSkill`); null when none were declared. */
  skills: string | null;
  status: string;
  online: number;
  last_seen_at: string | null;
  last_report: string | null;
  created_at: string;
  updated_at: string;
  /** Order of the last presence change applied (cluster mode; 0 on a single node). */
  presence_seq: Generated<number>;
}

export interface HumanCredentialsTable {
  user_id: number;
  password_hash: string;
  updated_at: string;
}

export interface MachineCredentialsTable {
  user_id: number;
  /** HMAC-SHA256 of the token under the hub's lookup key: finds the agent without storing the token. */
  token_lookup: string;
  /** AES-256-GCM of the token under the hub's encryption key: only the dev endpoint decrypts it. */
  token_cipher: string;
  token_hint: string;
  token_updated_at: string;
}

export interface MessagesTable {
  id: Generated<number>;
  type: string;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  target_id: number | null;
  /** JSON text of the payload (a JSON string for chat types). */
  payload: string;
  level: string | null;
  content: string;
  local_id: string | null;
  conversation_id: number | null;
  stream_id: string | null;
  /** The receiver's role when the row was stored (null for broadcasts). */
  target_role: string | null;
  created_at: string;
}

export interface ConversationThreadsTable {
  id: Generated<number>;
  owner_user_id: number;
  peer_user_id: number;
  channel_kind: string;
  title: string;
  summary: Generated<string>;
  is_pinned: Generated<number>;
  is_default: Generated<number>;
  archived_at: string | null;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
}

export type AuthorizationStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED';

export interface AuthorizationRequestsTable {
  action_id: string;
  requester_id: number;
  conversation_id: number | null;
  /** The human who must answer; null: any admin. */
  approver_id: number | null;
  target_agent_id: number;
  target_agent_name: string;
  command: string;
  reason: string;
  status: AuthorizationStatus;
  /** JSON array of the AUTH_REQUEST chat rows' ids. */
  message_ids: Generated<string>;
  decided_by: number | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  /** What the human who decided wrote with their decision (migration 0016); null: nothing. */
  decision_note: string | null;
}

export interface ConnectorsTable {
  id: Generated<number>;
  connector_name: string;
  app_id: string;
  /** AES-256-GCM text of each secret (null when not set). */
  app_secret_cipher: string | null;
  verification_token_cipher: string | null;
  encrypt_key_cipher: string | null;
  allow_dm: number;
  allow_group_mention: number;
  mention_required: number;
  prefix_command: string;
  ignore_bot_messages: number;
  rate_limit_per_minute: number;
  /** JSON arrays of strings. */
  allowed_chat_ids: string;
  user_whitelist: string;
  callback_url: string;
  state: string;
  is_current: Generated<number>;
  version: Generated<number>;
  last_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConnectorLogsTable {
  id: Generated<number>;
  connector_id: number;
  level: string;
  action: string;
  detail: string;
  trace_id: string | null;
  created_at: string;
}

/** An SSH key of the older dashboards' ops inventory; the private key is kept only encrypted. */
export interface SshKeysTable {
  id: Generated<number>;
  name: string;
  public_key: string;
  /** `SHA256:…` of the public key, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** AES-256-GCM of the private key under the hub's SSH-key encryption key. */
  private_key_cipher: string;
  created_at: string;
  updated_at: string;
}

export interface InfraNodesTable {
  id: Generated<number>;
  name: string;
  host: string;
  port: number;
  ssh_user: string;
  ssh_key_id: number;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface OpsTasksTable {
  id: Generated<number>;
  task: string;
  reasoning: string;
  success: number;
  summary: string;
  error: string;
  worker_mode: string;
  duration_ms: number;
  started_at: string;
  finished_at: string;
}

export interface PlatformIdentitiesTable {
  user_id: number;
  platform_user_id: string;
  created_at: string;
}

export interface PlatformThreadsTable {
  thread_id: number;
  user_id: number;
  chat_id: string;
  last_message_at: string;
}

export interface MigrationsTable {
  name: string;
  checksum: string;
  applied_at: string;
}

/** Cluster mode: the id of the newest committed message batch (one row). */
export interface ClusterCommitOrderTable {
  id: number;
  last_id: number;
}

/** Cluster mode: a singleton's lease holder and fencing epoch. */
export interface ClusterLeasesTable {
  name: string;
  epoch: number;
  node_id: string;
  acquired_at: string;
}

/** Cluster mode: a bus message every node must hear (delivery/bus.ts `durable`), kept for an hour. */
export interface BusJournalTable {
  id: Generated<number>;
  node: string;
  kind: string;
  /** The message's body as JSON. */
  body: string;
  /** Milliseconds since the epoch, by the writing node's clock (for pruning). */
  created_at: number;
}

/** A personal access token of a human (migration 0012): found by its HMAC, never stored itself. */
export interface AccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** HMAC-SHA256 of the token under the hub's access-token lookup key. */
  token_lookup: string;
  token_hint: string;
  created_at: string;
}

/** An A2A task (src/a2a/): the SDK's task as JSON, and what it is looked up by. */
export interface A2aTasksTable {
  id: string;
  owner_id: number;
  agent_id: number;
  context_id: string;
  conversation_id: number | null;
  /** The A2A TaskState name (TASK_STATE_WORKING...). */
  state: string;
  /** The task status' timestamp: the list's order and its cursor. */
  status_at: string;
  task: string;
  created_at: string;
  updated_at: string;
}

/** A webhook registered for an A2A task's updates. */
export interface A2aPushConfigsTable {
  task_id: string;
  id: string;
  owner_id: number;
  agent_id: number;
  /**
   * The SDK's TaskPushNotificationConfig as JSON, sealed (`v1.…`, a2a/pushStore.ts: it holds the
   * webhook's credentials); plain JSON in rows an older hub wrote, sealed at the next start.
   */
  config: string;
  /** The A2A version it was registered over ('1.0', '0.3'): the body shape its webhook gets. */
  wire_version: string;
  created_at: string;
}

/** A remote A2A agent (runtime_kind 'a2a'): where its card is and how the hub calls it. */
export interface A2aRemoteAgentsTable {
  user_id: number;
  card_url: string;
  /** The bearer credential the hub sends the agent, sealed (auth/secrets.ts); null when it needs none. */
  credential: string | null;
  /** The card as last fetched (the SDK's JSON). */
  card: string;
  /** The id of the last chat carried to the agent (answered or failed for good): the back-log starts after it. */
  carried_id: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface Database {
  users: UsersTable;
  a2a_remote_agents: A2aRemoteAgentsTable;
  a2a_tasks: A2aTasksTable;
  a2a_push_configs: A2aPushConfigsTable;
  human_credentials: HumanCredentialsTable;
  machine_credentials: MachineCredentialsTable;
  access_tokens: AccessTokensTable;
  messages: MessagesTable;
  conversation_threads: ConversationThreadsTable;
  authorization_requests: AuthorizationRequestsTable;
  connectors: ConnectorsTable;
  connector_logs: ConnectorLogsTable;
  platform_identities: PlatformIdentitiesTable;
  platform_threads: PlatformThreadsTable;
  ssh_keys: SshKeysTable;
  infra_nodes: InfraNodesTable;
  ops_tasks: OpsTasksTable;
  migrations: MigrationsTable;
  cluster_commit_order: ClusterCommitOrderTable;
  cluster_leases: ClusterLeasesTable;
  bus_journal: BusJournalTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
export type MachineCredentialRow = Selectable<MachineCredentialsTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type ThreadRow = Selectable<ConversationThreadsTable>;
export type NewThread = Insertable<ConversationThreadsTable>;
export type AuthorizationRow = Selectable<AuthorizationRequestsTable>;
export type NewAuthorization = Insertable<AuthorizationRequestsTable>;
export type ConnectorRow = Selectable<ConnectorsTable>;
export type NewConnector = Insertable<ConnectorsTable>;
export type ConnectorLogRow = Selectable<ConnectorLogsTable>;
export type SshKeyRow = Selectable<SshKeysTable>;
export type InfraNodeRow = Selectable<InfraNodesTable>;
export type OpsTaskRow = Selectable<OpsTasksTable>;
