// @agent-hub/testing: test agents against a real hub (see packages/testing/README.md).
export { startTestHub } from './testHub.js';
export type { NodeChoice, TestClient, TestHub, TestHubOptions, TestNode, TestPlatform } from './testHub.js';
export type { TestActors, TestActorView } from './actors.js';
export type { Duration } from './duration.js';
export { toMs } from './duration.js';
export { lastUserText, textReply } from './fakeModel.js';
export type { FakeModel, ModelRequest, Reply, ScriptStep } from './fakeModel.js';
export type { FakePlatform, MessageEventInput, RecordedAck, RecordedSend } from './fakePlatform.js';
export { matches } from './match.js';
export type { Matcher, Pattern } from './match.js';
export type { FrameMatcher, FrameProbe } from './probe.js';
export type { TraceEntry } from './trace.js';
export type { ActorSnapshotView } from '../ops/inspection.js';
