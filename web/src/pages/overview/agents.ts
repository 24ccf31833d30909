// The overview's wording for an agent's activity. Pure, so it is tested without a browser. (Order,
// counts and search are the hub's: GET /api/users/agents and /api/users/agents/counts.)

/** `1 report`, `350 reports`: an agent's logs and reports, the telemetry every user sees (chat is not counted). */
export const reportCount = (n: number) => `${n.toLocaleString('en-US')} report${n === 1 ? '' : 's'}`;
