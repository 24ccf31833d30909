// The hub's client library (`@agent-hub/client`, packaged by packages/client): the typed WebSocket
// client, the REST helper and the wire types they speak. Safe to bundle for a browser.
export { createHubClient, DEFAULT_RECONNECT, HubClient } from './hubClient.js';
export type { HubClientOptions } from './hubClient.js';
export { ClientStoppedError, FrameRefusedError } from './clientErrors.js';
export { DIRECTIVE_PREFIX, isDirective } from './chatDispatch.js';
export type { Directive } from './chatDispatch.js';
export type { ClientEvents, InterruptedStream, StatusEvent } from './listeners.js';
export type { OutgoingFrame } from './outbound.js';
export { RETRY_FLOOR_MS } from './connectionMachine.js';
export type { ConnectionState, ReconnectOptions } from './connectionMachine.js';
export { decideOnClose, backoffDelay } from './closeCodes.js';
export type { Receipt } from './outbox.js';
export { OutboxFullError } from './outbox.js';
export { createRestClient, HubRequestError } from './rest.js';
export { describeAnswer } from './answers.js';
export type { HttpAnswer } from './answers.js';
export type {
  ActorSnapshot,
  AgentCreated,
  AuthorizationView,
  AuthResponseResult,
  ConnectionCheck,
  ConnectorAction,
  ConnectorLogView,
  ConnectorOutcome,
  ConnectorView,
  MachineDescription,
  Page,
  RestClient,
  RestOptions,
  StatsMessagesQuery,
  TokenRotated,
} from './rest.js';
export type { AccessTokenView } from '../protocol/accessTokens.js';
export type {
  AgentCounts,
  CountSeries,
  OnlineSeries,
  PresenceStrips,
  ReportFields,
  ReportTallies,
  RuntimeSamples,
  UnansweredSummary,
} from '../protocol/stats.js';
export { StreamWriter } from './stream.js';
export type { SocketConstructor, SocketLike } from './transport.js';
export { serverFrame } from '../protocol/serverFrames.js';
export type { ChatFrameIn, FrameOf, MessageFrameIn, ServerFrame, ServerFrameType } from '../protocol/serverFrames.js';
export { AlertSeverities, ReviewSeverities, ReviewVerdicts, codeReviewPayload, securityAlertPayload, weatherUpdatePayload } from '../protocol/reports.js';
export type {
  AlertSeverity,
  CodeReviewPayload,
  ReportPayloads,
  ReviewFinding,
  SecurityAlertPayload,
  SecurityFinding,
  WeatherUpdatePayload,
} from '../protocol/reports.js';
export { ChatRowTypes, isLogLevel, LogLevels, ReportTypes, TelemetryTypes } from '../protocol/messages.js';
export { ChatTypes, isChatType, isReportType, isTelemetryType } from '../protocol/frames.js';
export type { ChatType } from '../protocol/frames.js';
export { defaultThreadTitle } from '../protocol/threads.js';
export { connectorFieldsBody, CredentialFields, SecretFields } from '../protocol/connector.js';
export type { ConnectorFieldsInput, SecretField } from '../protocol/connector.js';
export { formatZodError } from '../protocol/validation.js';
export type { ChatRowType, LogLevel, ReportType, SystemLogPayload, TelemetryType } from '../protocol/messages.js';
export type { ChatMessageView, MessageView, PresenceView, ThreadView, UserView } from '../protocol/objects.js';
