// What the hub sends, read leniently with zod: the generators judge frames by type, id, local_id
// and ERROR code, and count anything unreadable instead of throwing.
import { z } from 'zod';

const serverFrame = z.looseObject({
  type: z.string(),
  id: z.number().optional(),
  local_id: z.string().optional(),
  sender_id: z.number().optional(),
  payload: z.unknown().optional(),
});
const errorPayload = z.looseObject({ code: z.string(), message: z.string().optional() });

export type ServerFrame = z.infer<typeof serverFrame> & { errorCode?: string };

export function parseServerFrame(text: string): ServerFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'UNREADABLE', payload: text.slice(0, 200) };
  }
  const parsed = serverFrame.safeParse(value);
  if (!parsed.success) return { type: 'UNREADABLE', payload: text.slice(0, 200) };
  const frame: ServerFrame = parsed.data;
  if (frame.type === 'ERROR') frame.errorCode = errorPayload.safeParse(frame.payload).data?.code ?? 'unreadable';
  return frame;
}
