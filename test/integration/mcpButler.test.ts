// ask_butler over MCP with Butler on a fake language model (a loopback server speaking the
// OpenAI-compatible streaming API): the answer's stream chunks reach the SDK's client as progress
// notifications while the model is still streaming, and the result is Butler's stored answer.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startFakeModel, textReply, type FakeModel } from '../helpers/fakeModel.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectMcp } from '../helpers/mcpClient.js';

describeEachDriver('MCP ask_butler with a language model', (driver) => {
  let fake: FakeModel;
  let t: TestHub;
  let member: { id: number; token: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    fake = await startFakeModel();
    t = await startTestHub(driver, { BUTLER_BASE_URL: fake.baseUrl, BUTLER_MODEL: 'fake-model', BUTLER_STREAM_FLUSH_MS: '10' });
    member = await t.createMember();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  const mcp = async () => {
    const client = await connectMcp(t.url, member.token);
    clients.push(client);
    return client;
  };

  it("returns Butler's answer, its chunks streamed as progress, in the caller's thread", async () => {
    fake.enqueue(textReply('Three agents are online; none reported trouble.', 3, 150));
    const client = await mcp();
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'ask_butler', arguments: { text: 'how are my agents doing?' } },
      { onprogress: (p) => progress.push({ progress: p.progress, message: p.message }) },
    );
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { status: string; answer: { text: string }; thread_id: number; message_id: number };
    expect(out.status).toBe('answered');
    expect(out.answer.text).toBe('Three agents are online; none reported trouble.');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((p) => p.message).join('')).toBe(out.answer.text);
    // Progress counts the characters so far, and only goes up.
    expect(progress.at(-1)!.progress).toBe(out.answer.text.length);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    // The model saw the member's question.
    expect(JSON.stringify(fake.requests.at(-1)!.messages)).toContain('how are my agents doing?');

    const history = await client.callTool({ name: 'read_history', arguments: { thread: out.thread_id } });
    const texts = (history.structuredContent as { messages: Array<{ text: string }> }).messages.map((m) => m.text);
    expect(texts).toEqual(['how are my agents doing?', out.answer.text]);
  });

  it('delivers progress while the model is still streaming, before the result', async () => {
    fake.enqueue({ steps: [{ content: 'First part. ' }, { delayMs: 1500 }, { content: 'Second part.' }] });
    const client = await mcp();
    let firstProgressAt: number | undefined;
    const result = await client.callTool(
      { name: 'ask_butler', arguments: { text: 'take it slowly' } },
      {
        onprogress: () => {
          firstProgressAt ??= Date.now();
        },
      },
    );
    // The first chunk came while the model still held back its second part (1.5 s), not bundled with the result.
    expect(firstProgressAt).toBeDefined();
    expect(Date.now() - firstProgressAt!).toBeGreaterThanOrEqual(1000);
    expect((result.structuredContent as { answer: { text: string } }).answer.text).toBe('First part. Second part.');
  });
});
