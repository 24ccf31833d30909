// Report text as a person reads it: the hub's presence markers as words, and readings with more
// decimals than anyone measures rounded (an agent may send 12.3456789 °C; the line says 12.35 °C).

const MARKERS: Record<string, string> = {
  websocket_connected: 'connected',
  websocket_disconnected: 'disconnected',
};

/** A number with three or more decimals, not part of a version or an address (1.2.3, 10.0.0.1). */
const LONG_DECIMAL = /(?<![\d.])(-?\d+\.\d{3,})(?![\d.])/g;

export function roundReadings(text: string): string {
  return text.replace(LONG_DECIMAL, (n) => String(Number(Number(n).toFixed(2))));
}

/** The marker as a word (`connected`), or the line with its readings rounded. */
export function reportText(lastReport: string): string {
  return MARKERS[lastReport] ?? roundReadings(lastReport);
}

/** Whether the line is one of the hub's connection markers (shown with the time it happened). */
export function isMarker(lastReport: string | null | undefined): boolean {
  return !!lastReport && lastReport in MARKERS;
}

const fixed = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
/** A reading as a number with at most two decimals. */
export const reading = (value: number) => fixed.format(value);
