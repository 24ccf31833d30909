// A2A tasks followed from any node. A task's executor runs on the node that took its message; its
// events are published on the cluster bus as they happen, so `SubscribeToTask` (and `CancelTask`) on
// another node attach to a mirror of the task's event bus there. A cancel asked on another node is
// forwarded to the node running the task, whose CANCELED event comes back through the mirror. On a
// single node the bus reaches nobody and every task is local.
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  type AgentExecutionEvent,
  type EventListener,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type ExecutionEventName,
  type FinishedListener,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { z } from 'zod';
import { defineBusMessage, type Bus } from '../delivery/bus.js';

const eventBody = z.object({ kind: z.enum(['message', 'task', 'statusUpdate', 'artifactUpdate']), data: z.record(z.string(), z.unknown()) });

/** "An event of task `taskId`, running on this node" (or its end: `finished`). */
export const taskEventMessage = defineBusMessage(
  'a2a-task-event',
  z.object({ taskId: z.string().min(1).max(256), event: eventBody.optional(), finished: z.boolean().optional() }),
);
/** "Cancel task `taskId`": the node running it does. */
export const taskCancelMessage = defineBusMessage('a2a-task-cancel', z.object({ taskId: z.string().min(1).max(256) }));

function encode(event: AgentExecutionEvent): z.infer<typeof eventBody> {
  switch (event.kind) {
    case 'message':
      return { kind: event.kind, data: Message.toJSON(event.data) as Record<string, unknown> };
    case 'task':
      return { kind: event.kind, data: Task.toJSON(event.data) as Record<string, unknown> };
    case 'statusUpdate':
      return { kind: event.kind, data: TaskStatusUpdateEvent.toJSON(event.data) as Record<string, unknown> };
    case 'artifactUpdate':
      return { kind: event.kind, data: TaskArtifactUpdateEvent.toJSON(event.data) as Record<string, unknown> };
  }
}

function decode(body: z.infer<typeof eventBody>): AgentExecutionEvent {
  switch (body.kind) {
    case 'message':
      return { kind: 'message', data: Message.fromJSON(body.data) };
    case 'task':
      return { kind: 'task', data: Task.fromJSON(body.data) };
    case 'statusUpdate':
      return { kind: 'statusUpdate', data: TaskStatusUpdateEvent.fromJSON(body.data) };
    case 'artifactUpdate':
      return { kind: 'artifactUpdate', data: TaskArtifactUpdateEvent.fromJSON(body.data) };
  }
}

/**
 * A task's event bus on a node that does not run it: fed from the cluster bus, and listed as a
 * mirror only while something listens to it (a subscriber that leaves, or a lookup no one used,
 * leaves nothing behind).
 */
class MirrorBus implements ExecutionEventBus {
  private readonly inner = new DefaultExecutionEventBus();
  private listening = 0;
  constructor(private readonly watch: (bus: MirrorBus, on: boolean) => void) {}

  publish(event: AgentExecutionEvent): void {
    this.inner.publish(event);
  }
  finished(): void {
    this.inner.finished();
  }
  private count(delta: number): void {
    const before = this.listening;
    this.listening = Math.max(0, this.listening + delta);
    if (before === 0 && this.listening > 0) this.watch(this, true);
    if (before > 0 && this.listening === 0) this.watch(this, false);
  }
  on(eventName: 'event', listener: EventListener): this;
  on(eventName: 'finished', listener: FinishedListener): this;
  on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    (this.inner.on as (name: ExecutionEventName, l: EventListener | FinishedListener) => unknown)(eventName, listener);
    this.count(1);
    return this;
  }
  off(eventName: 'event', listener: EventListener): this;
  off(eventName: 'finished', listener: FinishedListener): this;
  off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    (this.inner.off as (name: ExecutionEventName, l: EventListener | FinishedListener) => unknown)(eventName, listener);
    this.count(-1);
    return this;
  }
  once(eventName: 'event', listener: EventListener): this;
  once(eventName: 'finished', listener: FinishedListener): this;
  once(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    (this.inner.once as (name: ExecutionEventName, l: EventListener | FinishedListener) => unknown)(eventName, listener);
    return this;
  }
  removeAllListeners(eventName?: ExecutionEventName): this {
    this.inner.removeAllListeners(eventName);
    this.count(-this.listening);
    return this;
  }
}

export function createClusterBusManager(deps: { bus: Bus; onCancel(taskId: string): void }): ExecutionEventBusManager & {
  /** Asks the node running `taskId` to cancel it. */
  cancelElsewhere(taskId: string): void;
  /** Tasks this node knows to be running on another node. */
  readonly runningElsewhere: ReadonlySet<string>;
} {
  const local = new DefaultExecutionEventBusManager();
  const runningElsewhere = new Set<string>();
  const mirrors = new Map<string, Set<MirrorBus>>();

  deps.bus.subscribe(taskEventMessage, ({ taskId, event, finished }) => {
    if (finished) runningElsewhere.delete(taskId);
    else runningElsewhere.add(taskId);
    for (const mirror of [...(mirrors.get(taskId) ?? [])]) {
      if (event) mirror.publish(decode(event));
      if (finished) mirror.finished();
    }
  });
  deps.bus.subscribe(taskCancelMessage, ({ taskId }) => deps.onCancel(taskId));

  function mirror(taskId: string): MirrorBus {
    return new MirrorBus((bus, on) => {
      let set = mirrors.get(taskId);
      if (on) {
        if (!set) mirrors.set(taskId, (set = new Set()));
        set.add(bus);
      } else if (set) {
        set.delete(bus);
        if (set.size === 0) mirrors.delete(taskId);
      }
    });
  }

  return {
    createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
      const existing = local.getByTaskId(taskId, context);
      if (existing) return existing;
      const bus = local.createOrGetByTaskId(taskId, context);
      bus.on('event', (event) => deps.bus.publish(taskEventMessage, { taskId, event: encode(event) }));
      bus.on('finished', () => deps.bus.publish(taskEventMessage, { taskId, finished: true }));
      return bus;
    },
    getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
      return local.getByTaskId(taskId, context) ?? (runningElsewhere.has(taskId) ? mirror(taskId) : undefined);
    },
    cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
      local.cleanupByTaskId(taskId, context);
    },
    cancelElsewhere(taskId: string): void {
      deps.bus.publish(taskCancelMessage, { taskId });
    },
    runningElsewhere,
  };
}
