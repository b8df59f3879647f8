import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/src/config.ts';

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, databaseUrl: undefined, baseUrl: 'http://localhost:8080', allowPrivateUrls: false, logLevel: 'info' });
    expect(c.dataDir).toBe(path.resolve('.cotejo'));
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      COTEJO_DATA_DIR: '/tmp/cotejo-x',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      COTEJO_BASE_URL: 'https://api.cotejo.example/',
      COTEJO_ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 9000,
      dataDir: '/tmp/cotejo-x',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
      baseUrl: 'https://api.cotejo.example',
      allowPrivateUrls: true,
      logLevel: 'debug',
    });
  });

  it('live mode: every local reader by default; a list, or none (live keys then get 503)', () => {
    const d = loadConfig({});
    expect([...d.liveReaders]).toEqual(['mrz', 'pdf417', 'text', 'ocr']);
    expect(d.ocrLanguages).toEqual(['eng', 'spa', 'fra', 'por']);
    expect(d.readingConcurrency).toBe(2);
    const c = loadConfig({ COTEJO_LIVE_READERS: ' MRZ, text ', COTEJO_OCR_LANGUAGES: 'eng', COTEJO_READING_CONCURRENCY: '4' });
    expect([...c.liveReaders]).toEqual(['mrz', 'text']);
    expect(c.ocrLanguages).toEqual(['eng']);
    expect(c.readingConcurrency).toBe(4);
    expect(loadConfig({ COTEJO_LIVE_READERS: 'none' }).liveReaders.size).toBe(0);
    for (const env of [{ COTEJO_LIVE_READERS: 'mrz,mistral' }, { COTEJO_OCR_LANGUAGES: 'deu' }, { COTEJO_READING_CONCURRENCY: '0' }, { COTEJO_OCR_LANGUAGES: 'none' }]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(new RegExp(Object.keys(env)[0]));
    }
  });

  it('the public routes allow 1,000 requests a second per address unless COTEJO_PUBLIC_RATE_LIMIT says otherwise', () => {
    expect(loadConfig({}).publicRateLimitPerSecond).toBe(1000);
    expect(loadConfig({ COTEJO_PUBLIC_RATE_LIMIT: '20' }).publicRateLimitPerSecond).toBe(20);
    for (const v of ['0', '-5', '2.5', 'lots']) expect(() => loadConfig({ COTEJO_PUBLIC_RATE_LIMIT: v }), v).toThrow(/COTEJO_PUBLIC_RATE_LIMIT/);
  });

  it('reports every problem at once, naming the variable', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', COTEJO_BASE_URL: 'ftp://x', COTEJO_ALLOW_PRIVATE_URLS: 'maybe', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'COTEJO_BASE_URL', 'COTEJO_ALLOW_PRIVATE_URLS', 'LOG_LEVEL']) expect(problems).toContain(name);
    }
  });
});
