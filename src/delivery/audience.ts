// The routing rules of wire.md §5 as data: who receives a message. The router applies them to live
// sockets and resume applies them to stored rows, so both always agree.
import { isChatType, isTelemetryType } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import type { Audience, Routable } from './types.js';

export function audienceOf(m: Routable): Audience {
  const machineSender = isMachineRole(m.sender_role);
  const chat = isChatType(m.type);
  if (m.target_id !== null) {
    const monitor =
      m.type === 'CHAT' && ((m.sender_role === 'BUTLER' && m.target_role === 'AGENT') || (m.sender_role === 'AGENT' && m.target_role === 'BUTLER'));
    return { target: m.target_id, echo: chat && !machineSender, exceptSender: false, monitor };
  }
  if (chat) return { broadcast: 'everyone', echo: false, exceptSender: machineSender, monitor: false };
  if (isTelemetryType(m.type)) return { broadcast: 'humans', echo: false, exceptSender: false, monitor: false };
  return { echo: false, exceptSender: false, monitor: false };
}

/** Whether a user receives the message itself (monitor copies aside). */
export function reaches(audience: Audience, senderId: number, user: { id: number; role: string }): boolean {
  if (audience.target !== undefined) return user.id === audience.target || (audience.echo && user.id === senderId);
  if (audience.broadcast === 'everyone') return !(audience.exceptSender && user.id === senderId);
  if (audience.broadcast === 'humans') return !isMachineRole(user.role);
  return false;
}
