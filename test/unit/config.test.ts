import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, trustedListsStaleAfterMs } from '../../server/src/config.ts';

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, databaseUrl: undefined, baseUrl: 'http://localhost:8080', allowPrivateUrls: false, logLevel: 'info' });
    expect(c.dataDir).toBe(path.resolve('.cotejo'));
  });

  it('COTEJO_ACCOUNT_NAME names the first account (trimmed; too long or with control characters refused); COTEJO_BASE_URL is marked as set', () => {
    expect(loadConfig({})).toMatchObject({ firstAccountName: 'Default account', baseUrlConfigured: false });
    expect(loadConfig({ COTEJO_ACCOUNT_NAME: '  Mi   Empresa S.L. ', COTEJO_BASE_URL: 'https://a.example' })).toMatchObject({ firstAccountName: 'Mi Empresa S.L.', baseUrlConfigured: true });
    expect(loadConfig({ COTEJO_ACCOUNT_NAME: '   ' }).firstAccountName).toBe('Default account');
    for (const bad of ['x'.repeat(101), 'a\u0000b']) {
      expect(() => loadConfig({ COTEJO_ACCOUNT_NAME: bad })).toThrow('COTEJO_ACCOUNT_NAME must be at most 100 characters, without control characters');
    }
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

  it('COTEJO_TRUSTED_LISTS_DIR: off by default; an existing directory is resolved; anything else is refused', () => {
    expect(loadConfig({}).trustedListsDir).toBeUndefined();
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_DIR: '' }).trustedListsDir).toBeUndefined();
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_DIR: import.meta.dirname }).trustedListsDir).toBe(path.resolve(import.meta.dirname));
    expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_DIR: '/nonexistent/cotejo-tl' })).toThrow('COTEJO_TRUSTED_LISTS_DIR must be an existing directory');
    expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_DIR: import.meta.filename })).toThrow('COTEJO_TRUSTED_LISTS_DIR must be an existing directory');
  });

  it('COTEJO_TRUSTED_LISTS_URL, _TERRITORIES and _REFRESH: defaults, accepted forms, and one line naming the variable', () => {
    const d = loadConfig({});
    expect([d.trustedListsUrl, d.trustedListsTerritories, d.trustedListsRefreshMs]).toEqual(['https://ec.europa.eu/tools/lotl/eu-lotl.xml', null, 24 * 3_600_000]);
    const c = loadConfig({ COTEJO_TRUSTED_LISTS_URL: 'http://mirror.example/lotl.xml', COTEJO_TRUSTED_LISTS_TERRITORIES: ' es, pt ,GR', COTEJO_TRUSTED_LISTS_REFRESH: '6h' });
    expect([c.trustedListsUrl, [...c.trustedListsTerritories!], c.trustedListsRefreshMs]).toEqual(['http://mirror.example/lotl.xml', ['ES', 'PT', 'EL'], 6 * 3_600_000]);
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: '30m' }).trustedListsRefreshMs).toBe(30 * 60_000);
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: '7d' }).trustedListsRefreshMs).toBe(7 * 24 * 3_600_000);
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: 'OFF' }).trustedListsRefreshMs).toBeNull();
    expect(loadConfig({ COTEJO_TRUSTED_LISTS_TERRITORIES: 'all' }).trustedListsTerritories).toBeNull();
    expect(trustedListsStaleAfterMs(loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: '6h' }))).toBe(6 * 3_600_000);
    expect(trustedListsStaleAfterMs(loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: 'off' }))).toBe(24 * 3_600_000);
    for (const bad of ['4m', '0h', '31d', '24', 'daily', '-1h']) {
      expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_REFRESH: bad })).toThrow(`COTEJO_TRUSTED_LISTS_REFRESH must be off or an interval from 5m to 30d such as 24h, 6h or 30m (got "${bad}")`);
    }
    expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_TERRITORIES: 'ES,Spain,EU' })).toThrow('COTEJO_TRUSTED_LISTS_TERRITORIES must be all or a comma-separated list of two-letter territories such as ES,PT,FR (the LOTL is always read); not understood: "SPAIN", "EU"');
    for (const bad of ['ftp://x.example/lotl.xml', 'https://user:pw@x.example/lotl.xml', 'not a url']) {
      expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_URL: bad })).toThrow('COTEJO_TRUSTED_LISTS_URL must be an http(s) URL without user or password');
    }
    expect(() => loadConfig({ COTEJO_TRUSTED_LISTS_URL: 'https://user:pw@x.example/lotl.xml' })).toThrow(/\(got a URL with a user or password\)$/);
  });

  it('COTEJO_REVOCATION_CHECK: online by default; embedded or off; anything else is refused', () => {
    expect(loadConfig({}).revocationCheck).toBe('online');
    expect(loadConfig({ COTEJO_REVOCATION_CHECK: 'embedded' }).revocationCheck).toBe('embedded');
    expect(loadConfig({ COTEJO_REVOCATION_CHECK: ' OFF ' }).revocationCheck).toBe('off');
    expect(() => loadConfig({ COTEJO_REVOCATION_CHECK: 'sometimes' })).toThrow('COTEJO_REVOCATION_CHECK must be online, embedded or off (got "sometimes")');
  });

  it('COTEJO_WORKER: a worker by default; false serves HTTP only; anything else is refused', () => {
    expect(loadConfig({}).worker).toBe(true);
    expect(loadConfig({ COTEJO_WORKER: 'false' }).worker).toBe(false);
    expect(loadConfig({ COTEJO_WORKER: 'true' }).worker).toBe(true);
    expect(() => loadConfig({ COTEJO_WORKER: 'sometimes' })).toThrow('COTEJO_WORKER must be true or false');
  });

  it('Mistral: off without a key; with one, the EU server, dated model pins and bounded time; every setting checked', () => {
    expect(loadConfig({}).mistral).toBeNull();
    expect(loadConfig({ MISTRAL_API_KEY: 'k' }).mistral).toEqual({
      apiKey: 'k', baseUrl: undefined, ocrModel: 'mistral-ocr-4-0', chatModel: 'mistral-small-2603', timeoutMs: 25_000, retryMs: 20_000, concurrency: 4,
    });
    expect(
      loadConfig({
        MISTRAL_API_KEY: ' k ', COTEJO_MISTRAL_BASE_URL: 'https://llm.example.eu/', COTEJO_MISTRAL_OCR_MODEL: 'mistral-ocr-2512',
        COTEJO_MISTRAL_CHAT_MODEL: 'mistral-medium-latest', COTEJO_MISTRAL_TIMEOUT_MS: '60000', COTEJO_MISTRAL_RETRY_MS: '0', COTEJO_MISTRAL_CONCURRENCY: '16',
      }).mistral,
    ).toEqual({ apiKey: 'k', baseUrl: 'https://llm.example.eu', ocrModel: 'mistral-ocr-2512', chatModel: 'mistral-medium-latest', timeoutMs: 60_000, retryMs: 0, concurrency: 16 });
    let err: unknown;
    try {
      loadConfig({ COTEJO_MISTRAL_BASE_URL: 'ftp://x', COTEJO_MISTRAL_TIMEOUT_MS: '10', COTEJO_MISTRAL_CONCURRENCY: 'many', COTEJO_MISTRAL_CHAT_MODEL: 'a b' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'COTEJO_MISTRAL_BASE_URL must be an http(s) URL (got "ftp://x")',
      'COTEJO_MISTRAL_CHAT_MODEL must be a model name such as mistral-small-2603 (got "a b")',
      'COTEJO_MISTRAL_TIMEOUT_MS must be an integer from 1000 to 600000 (got "10")',
      'COTEJO_MISTRAL_CONCURRENCY must be an integer from 1 to 256 (got "many")',
    ]);
    expect(() => loadConfig({ COTEJO_MISTRAL_BASE_URL: 'https://llm.example.eu' })).toThrow('COTEJO_MISTRAL_BASE_URL is set but MISTRAL_API_KEY is not');
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

  it('page OCR engine: auto by default; paddle or tesseract when COTEJO_OCR_ENGINE says so; anything else refused', () => {
    expect(loadConfig({}).ocrEngine).toBe('auto');
    expect(loadConfig({ COTEJO_OCR_ENGINE: ' Paddle ' }).ocrEngine).toBe('paddle');
    expect(loadConfig({ COTEJO_OCR_ENGINE: 'tesseract' }).ocrEngine).toBe('tesseract');
    expect(loadConfig({ COTEJO_OCR_ENGINE: '' }).ocrEngine).toBe('auto');
    for (const v of ['easyocr', 'on', 'paddle,tesseract']) expect(() => loadConfig({ COTEJO_OCR_ENGINE: v }), v).toThrow(/COTEJO_OCR_ENGINE must be auto, paddle or tesseract/);
  });

  it('the public routes allow 1,000 requests a second per address unless COTEJO_PUBLIC_RATE_LIMIT says otherwise', () => {
    expect(loadConfig({}).publicRateLimitPerSecond).toBe(1000);
    expect(loadConfig({ COTEJO_PUBLIC_RATE_LIMIT: '20' }).publicRateLimitPerSecond).toBe(20);
    for (const v of ['0', '-5', '2.5', 'lots']) expect(() => loadConfig({ COTEJO_PUBLIC_RATE_LIMIT: v }), v).toThrow(/COTEJO_PUBLIC_RATE_LIMIT/);
  });

  it('retention (#31): 7 d of finished jobs, 30 d of events, 100 final deliveries per endpoint, exports 24 h past expiry; each settable or off, bad values refused', () => {
    expect(loadConfig({}).retention).toEqual({ finishedJobsMs: 7 * 86_400_000, eventsMs: 30 * 86_400_000, deliveriesPerEndpoint: 100, expiredExportsMs: 86_400_000, emailsMs: 30 * 86_400_000, usageDetailMs: 2 * 86_400_000 });
    expect(loadConfig({ COTEJO_RETENTION_JOBS: '12h', COTEJO_RETENTION_EVENTS: 'off', COTEJO_RETENTION_DELIVERIES: '500', COTEJO_RETENTION_EXPORTS: '30m' }).retention).toEqual({
      finishedJobsMs: 12 * 3_600_000,
      eventsMs: null,
      deliveriesPerEndpoint: 500,
      expiredExportsMs: 30 * 60_000,
      emailsMs: 30 * 86_400_000,
      usageDetailMs: 2 * 86_400_000,
    });
    expect(loadConfig({ COTEJO_RETENTION_DELIVERIES: 'off' }).retention.deliveriesPerEndpoint).toBeNull();
    for (const [name, v] of [['COTEJO_RETENTION_JOBS', '7'], ['COTEJO_RETENTION_EVENTS', '0d'], ['COTEJO_RETENTION_EXPORTS', 'soon'], ['COTEJO_RETENTION_DELIVERIES', '0'], ['COTEJO_RETENTION_DELIVERIES', '2.5']]) {
      expect(() => loadConfig({ [name]: v }), `${name}=${v}`).toThrow(new RegExp(name));
    }
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
