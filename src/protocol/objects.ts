// The objects the HTTP API returns (wire.md §2), by the names the code uses. Each is declared once, as
// its schema in responses.ts (which the OpenAPI document shows); services/views.ts builds them from rows.
import type * as z from 'zod';
import type { chatMessageView, messageView, presenceView, threadView, userView } from './responses.js';

export type UserView = z.infer<typeof userView>;
export type PresenceView = z.infer<typeof presenceView>;
/** A dashboard or system message, with top-level copies of its payload for the older dashboards. */
export type MessageView = z.infer<typeof messageView>;
/** A chat history row (wire.md §2 ChatMessage): `payload` is the text (JSON text for AUTH_REQUEST). */
export type ChatMessageView = z.infer<typeof chatMessageView>;
export type ThreadView = z.infer<typeof threadView>;
