// Resume (`/api/ws?since=<id>`): sends a reconnecting user every stored frame addressed or broadcast
// to them after `since`, in id order, by the same routing rules as live delivery. Pages are read
// one at a time and the socket's buffer is allowed to drain in between, so a long absence cannot
// flood memory. The connection holds live frames back meanwhile and drops those replayed.
import { audienceOf, reaches } from './audience.js';
import { monitorFrame, toMessageFrame, type FrameSource } from '../protocol/frames.js';
import type { MessagesRepo } from '../store/repositories/messages.js';
import type { DeliveryMeter, Principal, ReplayOutlet } from './types.js';

export function createReplay(deps: { messages: MessagesRepo; pageSize?: number; meter?: DeliveryMeter }) {
  const pageSize = deps.pageSize ?? 500;
  const meter = deps.meter ?? { sent: () => undefined };
  /**
   * Resolves with the id of the last row read (0 when there was none): every frame with an id up to
   * it that is for this user has been sent, so live frames up to it are duplicates.
   */
  return async function replay(user: Principal, since: number, outlet: ReplayOutlet): Promise<number> {
    const send = (type: string, text: string) => {
      meter.sent(type, 1, text);
      outlet.send(text);
    };
    let cursor = since;
    let lastRead = 0;
    for (;;) {
      const rows = await deps.messages.afterId(user, cursor, pageSize);
      for (const row of rows) {
        cursor = lastRead = row.id;
        const source: FrameSource = { ...row, payload: JSON.parse(row.payload) as unknown };
        const audience = audienceOf(row);
        if (reaches(audience, row.sender_id, user)) send(row.type, JSON.stringify(toMessageFrame(source)));
        if (audience.monitor && user.role === 'ADMIN') send('BUTLER_AGENT_MESSAGE', monitorFrame(source));
        if (outlet.closed) return lastRead;
        // The replay goes at the reader's pace: a long absence must not fill the hub's memory.
        if (outlet.congested) await outlet.whenWritable();
      }
      if (rows.length < pageSize) return lastRead;
    }
  };
}
export type Replay = ReturnType<typeof createReplay>;
