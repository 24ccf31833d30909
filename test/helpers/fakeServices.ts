// External services of the example agents, faked on loopback with their real wire shapes: an
// OpenWeatherMap-style current-weather API and an OpenAI-compatible Chat Completions endpoint.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** `GET /data/2.5/weather?q=&appid=&units=metric`; the temperature per city is the test's to choose. */
export async function fakeWeatherApi(apiKey: string, temperatures: Record<string, number>) {
  const requests: URL[] = [];
  const server = await serve((req, _body, res) => {
    const url = new URL(req.url!, 'http://weather');
    requests.push(url);
    if (url.pathname !== '/data/2.5/weather') return json(res, 404, { cod: '404', message: 'not found' });
    if (url.searchParams.get('appid') !== apiKey)
      return json(res, 401, { cod: 401, message: 'Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.' });
    const city = url.searchParams.get('q') ?? '';
    const temp = temperatures[city];
    if (temp === undefined) return json(res, 404, { cod: '404', message: 'city not found' });
    json(res, 200, {
      coord: { lon: 10.75, lat: 59.91 },
      weather: [{ id: 600, main: 'Snow', description: 'light snow', icon: '13d' }],
      main: { temp, feels_like: temp - 4, temp_min: temp - 1, temp_max: temp + 1, pressure: 1012, humidity: 86 },
      wind: { speed: 3.6, deg: 200 },
      dt: 1767607200,
      name: city,
      cod: 200,
    });
  });
  return { ...server, requests };
}

/** `POST /v1/chat/completions` answering with `content`, or failing with `status` when set. */
export async function fakeChatCompletions(reply: { content?: string; status?: number }) {
  const requests: Array<{ authorization: string | undefined; body: { model: string; messages: Array<{ role: string; content: string }> } }> = [];
  const server = await serve((req, body, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(res, 404, { error: { message: 'not found' } });
    requests.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
    if (reply.status) return json(res, reply.status, { error: { message: 'the model is overloaded', type: 'server_error' } });
    json(res, 200, {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1767607200,
      model: requests.at(-1)!.body.model,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content ?? '' } }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  });
  return { ...server, baseUrl: `${server.url}/v1`, requests };
}
