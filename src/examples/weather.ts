// The weather agent: reads current weather from an OpenWeatherMap-compatible HTTP API and sends
// WEATHER_UPDATE to the dashboards every WEATHER_INTERVAL seconds and whenever someone asks
// ("weather" or "weather <place>" in chat, or as a directive). The API key never leaves the request.
import * as z from 'zod';
import { safeUrl, unreachable } from '../client/unreachable.js';
import type { WeatherUpdatePayload } from '../protocol/reports.js';
import { chatCommand, splitCommand, verbArgument, type AgentTools, type ExampleAgent } from './agent.js';

export interface WeatherOptions {
  apiKey: string;
  location: string;
  /** Base URL of the weather API (default https://api.openweathermap.org). */
  apiUrl?: string;
  /** Seconds between periodic updates; 0 turns them off. */
  intervalSeconds?: number;
  fetch?: typeof fetch;
}

/** The fields of OpenWeatherMap's current-weather answer (`/data/2.5/weather`) the agent uses. */
const currentWeather = z.object({
  name: z.string().optional(),
  dt: z.number().optional(),
  main: z.object({ temp: z.number(), feels_like: z.number().optional(), humidity: z.number().min(0).max(100).optional() }),
  weather: z.array(z.object({ description: z.string() })).optional(),
  wind: z.object({ speed: z.number().min(0) }).optional(),
});

export async function fetchWeather(options: WeatherOptions, location: string): Promise<WeatherUpdatePayload> {
  const url = new URL('/data/2.5/weather', options.apiUrl ?? 'https://api.openweathermap.org');
  url.searchParams.set('q', location);
  url.searchParams.set('units', 'metric');
  url.searchParams.set('appid', options.apiKey);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw unreachable('weather API', url, err);
  }
  const body: unknown = await res.json().catch(() => undefined);
  // Messages name the URL without its query (it carries the key), the status and the service's own message.
  const message = (body as { message?: unknown } | undefined)?.message;
  if (!res.ok) throw new Error(`the weather API at ${safeUrl(url)} answered ${res.status}${typeof message === 'string' ? ` (${message})` : ''}`);
  const parsed = currentWeather.safeParse(body);
  if (!parsed.success) throw new Error(`the weather API at ${safeUrl(url)} answered in an unexpected shape`);
  const w = parsed.data;
  const place = w.name ?? location;
  const conditions = w.weather?.[0]?.description;
  const payload: WeatherUpdatePayload = {
    location: place,
    temperature_c: w.main.temp,
    source: url.host,
    content: `${place}: ${w.main.temp.toFixed(1)} °C${conditions ? `, ${conditions}` : ''}`,
  };
  if (w.main.feels_like !== undefined) payload.feels_like_c = w.main.feels_like;
  if (w.main.humidity !== undefined) payload.humidity_pct = w.main.humidity;
  if (w.wind) payload.wind_speed_ms = w.wind.speed;
  if (conditions) payload.conditions = conditions.slice(0, 200);
  if (w.dt !== undefined) payload.observed_at = new Date(w.dt * 1000).toISOString();
  return payload;
}

export function createWeatherAgent(options: WeatherOptions): ExampleAgent {
  let timer: ReturnType<typeof setInterval> | undefined;
  let sent = 0;
  let last: WeatherUpdatePayload | undefined;

  /** Fetches and reports; answers with the summary line. */
  async function update(tools: AgentTools, location: string): Promise<string> {
    const payload = await fetchWeather(options, location);
    await tools.client.report('WEATHER_UPDATE', payload);
    sent++;
    last = payload;
    return payload.content!;
  }

  const placeOf = (text: string) => text.trim().slice(0, 200) || options.location;

  return {
    kind: 'weather',
    description: `reports the weather in ${options.location}`,
    commands: ['weather [place]'],
    onChat: chatCommand({
      parse: verbArgument('weather'),
      hint: `Ask me "weather" or "weather <place>" (default ${options.location}).`,
      failure: 'fetching the weather failed',
      run: (place, tools) => update(tools, placeOf(place)),
    }),
    async onDirective(command, tools) {
      const [verb, rest] = splitCommand(command);
      if (verb !== 'weather') throw new Error(`unknown directive "${verb}"; try help`);
      return update(tools, placeOf(rest));
    },
    status: () => `weather agent: ${sent} update${sent === 1 ? '' : 's'} sent${last ? `; last: ${last.content}` : ''}`,
    start(tools) {
      const seconds = options.intervalSeconds ?? 600;
      const periodic = () => void update(tools, options.location).catch((err: unknown) => tools.fail('the periodic weather update failed', err));
      periodic();
      if (seconds > 0) timer = setInterval(periodic, seconds * 1000);
    },
    stop() {
      clearInterval(timer);
    },
  };
}
