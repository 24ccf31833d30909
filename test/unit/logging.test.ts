import { describe, it, expect } from 'vitest';
import { redactUrl } from '../../src/http/requestLog.js';
import { parseConfig } from '../../src/config.js';
import { createLogger, logDestination } from '../../src/logger.js';
import { escapeLike } from '../../src/store/repositories/like.js';

describe('redactUrl', () => {
  it('hides token, api_token and password query values', () => {
    expect(redactUrl('/ws?token=abc123')).toBe('/ws?token=[redacted]');
    expect(redactUrl('/api/agents/test?api_token=s3cr3t&verbose=1')).toBe('/api/agents/test?api_token=[redacted]&verbose=1');
    expect(redactUrl('/login?user=bob&password=hunter2')).toBe('/login?user=bob&password=[redacted]');
    expect(redactUrl('/x?access_token=abc')).toBe('/x?access_token=[redacted]');
  });

  it('hides every secret in one URL and keeps the other parameters in place', () => {
    expect(redactUrl('/ws?a=1&token=t&b=2&api_token=u&c=3&password=p&d=4')).toBe(
      '/ws?a=1&token=[redacted]&b=2&api_token=[redacted]&c=3&password=[redacted]&d=4',
    );
  });

  it('matches the parameter name case-insensitively', () => {
    expect(redactUrl('/ws?TOKEN=abc&Api_Token=def')).toBe('/ws?TOKEN=[redacted]&Api_Token=[redacted]');
  });

  it('keeps parameters whose names only contain a secret word, and URLs without a query', () => {
    expect(redactUrl('/ws?mytoken=keep&token_type=bearer&q=password')).toBe('/ws?mytoken=keep&token_type=bearer&q=password');
    expect(redactUrl('/api/token/password')).toBe('/api/token/password');
    expect(redactUrl('/api/messages?limit=10&q=hello')).toBe('/api/messages?limit=10&q=hello');
  });

  it('redacts an empty value too', () => {
    expect(redactUrl('/ws?token=&x=1')).toBe('/ws?token=[redacted]&x=1');
  });
});

describe('createLogger', () => {
  function capture(level = 'info') {
    const lines: string[] = [];
    const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
    const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { logger, lines, records };
  }

  it('writes one JSON line with level label, time and message', () => {
    const { logger, lines, records } = capture();
    logger.info({ user: 'bob' }, 'hello');
    expect(lines).toHaveLength(1);
    const [record] = records();
    expect(record).toMatchObject({ level: 'info', msg: 'hello', user: 'bob' });
    expect(typeof record!['time']).toBe('string');
    expect(record).not.toHaveProperty('pid');
  });

  it('drops records below its level', () => {
    const { logger, lines } = capture('info');
    logger.debug('not shown');
    logger.warn('shown');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('shown');
  });

  it('redacts credentials at the top level', () => {
    const { logger, lines, records } = capture();
    logger.info(
      { password: 'hunter2', api_token: 'tok-api', token: 'tok-jwt', authorization: 'Bearer a', headers: { authorization: 'Bearer b', host: 'hub' } },
      'top',
    );
    expect(records()[0]).toMatchObject({
      password: '[redacted]',
      api_token: '[redacted]',
      token: '[redacted]',
      authorization: '[redacted]',
      headers: { authorization: '[redacted]', host: 'hub' },
    });
    for (const secret of ['hunter2', 'tok-api', 'tok-jwt', 'Bearer a', 'Bearer b']) expect(lines[0]).not.toContain(secret);
  });

  it('redacts credentials one level down and keeps the neighbours', () => {
    const { logger, lines, records } = capture();
    logger.info(
      {
        user: { name: 'bob', password: 'hunter3', api_token: 'tok-api-2', token: 'tok-jwt-2' },
        req: { method: 'GET', headers: { authorization: 'Bearer c', host: 'hub' } },
      },
      'nested',
    );
    expect(records()[0]).toMatchObject({
      user: { name: 'bob', password: '[redacted]', api_token: '[redacted]', token: '[redacted]' },
      req: { method: 'GET', headers: { authorization: '[redacted]', host: 'hub' } },
    });
    for (const secret of ['hunter3', 'tok-api-2', 'tok-jwt-2', 'Bearer c']) expect(lines[0]).not.toContain(secret);
  });

  it('does not mutate the object that was logged', () => {
    const { logger } = capture();
    const body = { username: 'bob', password: 'hunter4' };
    logger.info(body, 'login');
    expect(body.password).toBe('hunter4');
  });
});

describe('escapeLike', () => {
  it('escapes %, _ and backslash', () => {
    expect(escapeLike('100%')).toBe('100\\%');
    expect(escapeLike('snake_case')).toBe('snake\\_case');
    expect(escapeLike('C:\\dir')).toBe('C:\\\\dir');
    expect(escapeLike('%_\\')).toBe('\\%\\_\\\\');
  });

  it('leaves other text alone', () => {
    expect(escapeLike('hello world [x] *.?')).toBe('hello world [x] *.?');
    expect(escapeLike('')).toBe('');
  });
});

describe('logDestination', () => {
  it('writes JSON lines unless asked for pretty output', () => {
    expect(logDestination('json')).toBeUndefined();
    const pretty = logDestination('pretty');
    expect(pretty).toBeDefined();
    expect(typeof pretty!.write).toBe('function');
  });

  it('reads LOG_FORMAT from the configuration', () => {
    expect(parseConfig({}).logFormat).toBeUndefined();
    expect(parseConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => parseConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT must be one of json, pretty');
  });
});
