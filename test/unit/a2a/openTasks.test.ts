// The open-task cap's count when a call's task is stored while another call's count is being read: the
// store's answer may not hold that task yet (its snapshot was taken first), and the call has left the
// reservations by the time the answer arrives. Calls side by side were admitted one over the cap so,
// on PostgreSQL, now and then.
import type { SendMessageRequest } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { createCallContext } from '../../../src/a2a/callContext.js';
import { createOpenTaskLimit } from '../../../src/a2a/openTasks.js';
import type { UserRow } from '../../../src/store/schema.js';

const caller = { id: 7, username: 'caller' } as UserRow;
const target = { id: 8, username: 'agent' } as UserRow;
const newTask = { message: { kind: 'message', messageId: 'm', role: 'user', parts: [] } } as unknown as SendMessageRequest;
const call = () => createCallContext({ caller, target, requestedVersion: undefined });

describe('the open-task cap', () => {
  it('refuses a call whose count was read before a task admitted beside it was stored', async () => {
    const nothingStored = 0;
    // The store's answers, held until the test lets them go: the read of the second call answers what the
    // store held when the read began (nothing), after the first call's task was stored meanwhile.
    const answers: Array<(n: number) => void> = [];
    const limit = createOpenTaskLimit({
      tasks: { countOpen: () => new Promise<number>((resolve) => answers.push(resolve)) },
      max: 1,
      ended: [],
    });
    const first = call();
    const admittingFirst = limit.admit(newTask, first);
    answers.shift()!(nothingStored);
    await admittingFirst;

    const second = call();
    const admittingSecond = limit.admit(newTask, second);
    // The first call's task is stored while the second's read is under way; the read answers from before.
    limit.stored(first);
    answers.shift()!(nothingStored);
    await expect(admittingSecond).rejects.toThrow(/too many open tasks/);
  });

  it('admits up to the cap, and a message to an open task always', async () => {
    const limit = createOpenTaskLimit({ tasks: { countOpen: async () => 1 }, max: 2, ended: [] });
    await expect(limit.admit(newTask, call())).resolves.toBeTypeOf('function');
    await expect(limit.admit(newTask, call())).rejects.toThrow(/A2A_MAX_OPEN_TASKS/);
    await expect(limit.admit({ ...newTask, message: { ...newTask.message, taskId: 't' } } as SendMessageRequest, call())).resolves.toBeTypeOf('function');
  });
});
