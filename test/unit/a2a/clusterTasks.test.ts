// A2A tasks followed from another node: the task's events ride the bus to a mirror of its event bus
// there, a cancel asked there reaches the node running it, and a node knows only tasks that run
// somewhere. On the loopback bus of a single process and on cluster mode's Redis bus, same code.
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, ExecutionEventQueue, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterBusManager, taskCancelMessage, taskEventMessage } from '../../../src/a2a/clusterTasks.js';
import type { Bus } from '../../../src/delivery/bus.js';
import { busNodes, nextOn, type BusNodes, type Transport } from '../../helpers/buses.js';

const status = (state: TaskState) =>
  AgentEvent.statusUpdate({ taskId: 't1', contextId: 'c1', status: { state, message: undefined, timestamp: '2026-12-07T12:00:00.000Z' }, metadata: {} });
const task = AgentEvent.task({
  id: 't1',
  contextId: 'c1',
  status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: '2026-12-07T12:00:00.000Z' },
  artifacts: [],
  history: [],
  metadata: {},
});

describe.each<Transport>(['loopback', 'redis'])('A2A tasks across nodes on the %s bus', (transport) => {
  let nodes: BusNodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it("mirrors a task's events on another node until it ends, and forwards a cancel to the node running it", async () => {
    nodes = await busNodes(transport, 2);
    const [runner, follower] = nodes.buses as [Bus, Bus];
    const cancels: string[] = [];
    const running = createClusterBusManager({ bus: runner, onCancel: (id) => void cancels.push(id) });
    const following = createClusterBusManager({ bus: follower, onCancel: () => undefined });
    expect(following.getByTaskId('t1')).toBeUndefined();

    const local = running.createOrGetByTaskId('t1');
    // Subscribed after the manager: once this hears the event, the follower's manager has too.
    const heard = nextOn(follower, taskEventMessage);
    local.publish(task);
    await heard;
    expect(following.runningElsewhere.has('t1')).toBe(true);

    const mirror = following.getByTaskId('t1')!;
    const queue = new ExecutionEventQueue(mirror);
    const collected = (async () => {
      const events: AgentExecutionEvent[] = [];
      for await (const event of queue.events()) events.push(event);
      return events;
    })();
    local.publish(status(TaskState.TASK_STATE_WORKING));
    local.publish(status(TaskState.TASK_STATE_COMPLETED));
    const events = await collected;
    expect(events.map((e) => (e.kind === 'statusUpdate' ? e.data.status?.state : e.kind))).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    expect(events[0]).toEqual(status(TaskState.TASK_STATE_WORKING));

    const cancelled = nextOn(runner, taskCancelMessage);
    following.cancelElsewhere('t1');
    await cancelled;
    expect(cancels).toEqual(['t1']);

    const ended = nextOn(follower, taskEventMessage);
    local.finished();
    expect(await ended).toEqual({ taskId: 't1', finished: true });
    expect(following.runningElsewhere.has('t1')).toBe(false);
    expect(following.getByTaskId('t1')).toBeUndefined();
  });
});
